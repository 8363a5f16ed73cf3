package it.dev.dockyard.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP/1.1 over a plain socket to the control plane on 127.0.0.1, for requests a client library
 * will not send (bad percent-encoding, oversized or malformed headers, broken chunking) and for
 * bodies larger than the server reads. The body is written on another thread while the answer is
 * read, so a server that answers 413 and stops reading does not stall the test.
 */
public final class RawHttp {

    public record Answer(int status, Map<String, String> headers, String body) {
        public String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    private final int port;

    public RawHttp(int port) {
        this.port = port;
    }

    /** Sends {@code head} (request line and headers, CRLF-terminated, without the blank line) and {@code body}. */
    public Answer send(String head, byte[] body) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    for (int at = 0; at < body.length; at += 65536) {
                        out.write(body, at, Math.min(65536, body.length - at));
                    }
                    out.flush();
                } catch (IOException e) {
                    // the server answered and closed before taking it all: what the test looks for
                }
            });
            byte[] answer = readAll(socket.getInputStream());
            writing.cancel(true);
            return parse(answer);
        } catch (IOException e) {
            throw new AssertionError("no answer from 127.0.0.1:" + port + ": " + e, e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        try {
            for (int n = in.read(chunk); n >= 0 && all.size() < 1_000_000; n = in.read(chunk)) {
                all.write(chunk, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // an answer without Connection: close honoured: take what came
        } catch (IOException e) {
            // reset after the answer (the server stopped reading an oversized body)
            if (all.size() == 0) {
                throw e;
            }
        }
        return all.toByteArray();
    }

    private static Answer parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return new Answer(-1, Map.of(), text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        int status = statusLine.length > 1 && statusLine[1].matches("\\d{3}") ? Integer.parseInt(statusLine[1]) : -1;
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        byte[] bodyBytes = Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            bodyBytes = dechunk(bodyBytes);
        }
        return new Answer(status, headers, new String(bodyBytes, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (at < chunked.length) {
            int lineEnd = indexOf(chunked, at);
            if (lineEnd < 0) {
                break;
            }
            String size = new String(chunked, at, lineEnd - at, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int length = size.isEmpty() ? 0 : Integer.parseInt(size, 16);
            if (length == 0) {
                break;
            }
            out.write(chunked, lineEnd + 2, Math.min(length, chunked.length - lineEnd - 2));
            at = lineEnd + 2 + length + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
