package dev.dockyard.http;

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
 * The status line and headers of an HTTP/1.1 response read off a socket, and the body that follows
 * them framed as they say (RFC 9112 §6.3): none for 1xx, 204 and 304, chunked, exactly
 * Content-Length bytes, or up to the connection's end when the connection closes after this
 * response. Read by the service proxy's upgrade handshakes and by credential calls pinned to a
 * checked address.
 */
public record ResponseHead(String version, int status, String reason, List<Header> headers) {

    /**
     * Reads a response head of at most {@code maxBytes}, leaving {@code in} at the first byte of the
     * body (or, after a 101, of the new protocol).
     */
    public static ResponseHead read(InputStream in, int maxBytes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        int matched = 0; // how much of "\r\n\r\n" was just read
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection closed before an answer");
            }
            bytes.write(b);
            if (bytes.size() > maxBytes) {
                throw new IOException("response head larger than " + maxBytes + " bytes");
            }
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = bytes.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x response");
        }
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status");
        }
        if (code < 100 || code > 599) {
            throw new IOException("not an HTTP status");
        }
        List<Header> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.add(new Header(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()));
            }
        }
        return new ResponseHead(status[0], code, status.length > 2 ? status[2] : "", List.copyOf(headers));
    }

    /** The first value of a header, by name in any case. */
    public Optional<String> header(String name) {
        return headers.stream().filter(h -> h.is(name)).map(Header::value).findFirst();
    }

    /** Whether the connection ends with this response's body (HTTP/1.0, or Connection: close). */
    public boolean closes() {
        return version.equals("HTTP/1.0")
                || header("Connection").map(v -> v.toLowerCase(Locale.ROOT).contains("close")).orElse(false);
    }

    /** The body's length when Content-Length gives it and no transfer coding overrides it; empty otherwise. */
    public Optional<Long> contentLength() throws IOException {
        if (header("Transfer-Encoding").isPresent()) {
            return Optional.empty();
        }
        Optional<String> length = header("Content-Length");
        if (length.isEmpty()) {
            return Optional.empty();
        }
        try {
            long value = Long.parseLong(length.get().trim());
            if (value < 0) {
                throw new NumberFormatException();
            }
            return Optional.of(value);
        } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length");
        }
    }

    /**
     * The body that follows this head on {@code in}, ending where its framing says. A body with
     * neither a length nor chunks ends with the connection only when the connection closes after
     * it: the answer says so, or {@code closeAsked} because the request said {@code Connection:
     * close}. Otherwise it is taken as empty rather than waited for on a connection kept alive.
     */
    public InputStream body(InputStream in, boolean closeAsked) throws IOException {
        if (status == 204 || status == 304 || status < 200) {
            return InputStream.nullInputStream();
        }
        Optional<String> coding = header("Transfer-Encoding");
        if (coding.isPresent()) {
            if (!coding.get().trim().equalsIgnoreCase("chunked")) {
                throw new IOException("unsupported Transfer-Encoding");
            }
            return new ChunkedInputStream(in);
        }
        Optional<Long> length = contentLength();
        if (length.isPresent()) {
            return new LengthDelimited(in, length.get());
        }
        return closes() || closeAsked ? in : InputStream.nullInputStream();
    }

    /** Exactly {@code length} bytes of the underlying stream; a connection that ends sooner is an error. */
    private static final class LengthDelimited extends InputStream {
        private final InputStream in;
        private long remaining;

        LengthDelimited(InputStream in, long length) {
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
            if (n < 0) {
                throw new EOFException("the answer was cut short");
            }
            remaining -= n;
            return n;
        }
    }
}
