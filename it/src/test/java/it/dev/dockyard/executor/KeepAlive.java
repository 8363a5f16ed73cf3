package it.dev.dockyard.executor;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * (As in the benchmark.) A minimal HTTP/1.1 client on one kept-alive socket: what is timed is the server's round trip,
 * not a client library's thread hand-offs (java.net.http adds about a millisecond here).
 */
final class KeepAlive implements AutoCloseable {
    private final Socket socket;
    private final BufferedInputStream in;
    private final OutputStream out;
    private final String host;

    KeepAlive(URI uri) throws IOException {
        socket = new Socket(uri.getHost(), uri.getPort());
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        host = uri.getHost() + ":" + uri.getPort();
    }

    String post(String path, String headerName, String headerValue, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headerName + ": " + headerValue
                + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(bytes);
        out.write(request.toByteArray());
        out.flush();
        String status = line();
        int length = -1;
        boolean chunked = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(h.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(line().strip(), 16); size > 0; size = Integer.parseInt(line().strip(), 16)) {
                answer.writeBytes(in.readNBytes(size));
                line();
            }
            line();
        } else {
            answer.writeBytes(in.readNBytes(length));
        }
        String text = answer.toString(StandardCharsets.UTF_8);
        if (!status.contains(" 200 ")) {
            throw new IllegalStateException("unexpected answer " + status + ": " + text);
        }
        return text;
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
