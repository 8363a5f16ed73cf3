package dev.dockyard.transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** One request written byte for byte to 127.0.0.1 (what no HTTP client sends), and the answer as it came. */
record RawExchange(int status, Map<String, String> headers, byte[] body) {

    static RawExchange send(int port, String request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return parse(readAll(socket.getInputStream()));
        } catch (IOException e) {
            throw new AssertionError("no answer from 127.0.0.1:" + port + ": " + e, e);
        }
    }

    /** A GET of {@code target} with the Host header that picks the port's virtual host. */
    static RawExchange get(int port, String target) {
        return send(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n");
    }

    String contentType() {
        return headers.getOrDefault("content-type", "");
    }

    String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        try {
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                all.write(chunk, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // the server kept the connection open: take what came
        }
        return all.toByteArray();
    }

    private static RawExchange parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return new RawExchange(-1, Map.of(), raw);
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
        return new RawExchange(status, headers, Arrays.copyOfRange(raw, end + 4, raw.length));
    }
}
