package dev.dockyard.proxy;

import dev.dockyard.http.ChunkedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The HTTP/1.1 exchange that opens a tunnel, written and read by hand on a plain socket: Java's
 * HTTP client cannot hand over the connection after a 101, and a WebSocket client library would
 * decode and re-encode every frame, where the proxy only has to pass bytes. So the proxy writes the
 * client's upgrade request (headers rewritten like any request's) and reads the service's answer
 * head; after a 101 the socket carries the new protocol, anything else is an ordinary response.
 */
final class UpgradeHandshake {

    /** A response head bigger than this is no answer the proxy relays. */
    static final int MAX_HEAD = 64 * 1024;

    /** The status line and headers of the service's answer. */
    record ResponseHead(String version, int status, String reason, List<Header> headers) {

        Optional<String> header(String name) {
            return headers.stream().filter(h -> h.is(name)).map(Header::value).findFirst();
        }

        /** Whether the connection ends with this response's body (HTTP/1.0, or Connection: close). */
        boolean closes() {
            return version.equals("HTTP/1.0")
                    || header("Connection").map(v -> v.toLowerCase(Locale.ROOT).contains("close")).orElse(false);
        }
    }

    private UpgradeHandshake() {
    }

    /** The request head: request line, Host (the service's address) and the forwarded headers. */
    static byte[] requestHead(String method, String pathAndQuery, String hostAndPort, List<Header> headers) {
        StringBuilder head = new StringBuilder();
        head.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(hostAndPort).append("\r\n");
        for (Header h : headers) {
            head.append(h.name()).append(": ").append(h.value()).append("\r\n");
        }
        head.append("\r\n");
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Reads a response head, leaving {@code in} at the first byte after it. */
    static ResponseHead readHead(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        int matched = 0; // how much of "\r\n\r\n" was just read
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the service closed the connection before answering");
            }
            bytes.write(b);
            if (bytes.size() > MAX_HEAD) {
                throw new IOException("response head larger than " + MAX_HEAD + " bytes");
            }
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = bytes.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response");
        }
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status");
        }
        List<Header> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.add(new Header(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()));
            }
        }
        return new ResponseHead(status[0], code, status.length > 2 ? status[2] : "", headers);
    }

    /** The body that follows a (non-101) response head, framed as the head says. */
    static InputStream body(ResponseHead head, InputStream in) {
        if (head.status() == 204 || head.status() == 304 || head.status() < 200) {
            return InputStream.nullInputStream();
        }
        if (head.header("Transfer-Encoding").map(v -> v.toLowerCase(Locale.ROOT).contains("chunked")).orElse(false)) {
            return new ChunkedInputStream(in);
        }
        Optional<String> length = head.header("Content-Length");
        if (length.isPresent()) {
            try {
                return new BoundedInputStream(in, Long.parseLong(length.get().trim()));
            } catch (NumberFormatException e) {
                return InputStream.nullInputStream();
            }
        }
        return head.closes() ? in : InputStream.nullInputStream();
    }

    /** At most {@code remaining} bytes of the underlying stream. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInputStream(InputStream in, long length) {
            this.in = in;
            this.remaining = length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }
    }
}
