package dev.dockyard.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A chunked HTTP/1.1 body (RFC 9112 §7.1) decoded to its bytes; trailers are read and dropped. Only
 * needed where Dockyard speaks HTTP on a socket itself: a service refusing a WebSocket upgrade, and a
 * token endpoint called on the address its check resolved (credentials' {@code PinnedCall}).
 */
public final class ChunkedInputStream extends InputStream {

    private final InputStream in;
    private long remaining;
    private boolean started;
    private boolean done;

    public ChunkedInputStream(InputStream in) {
        this.in = in;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (done) {
            return -1;
        }
        if (remaining == 0) {
            if (started) {
                line(); // the CRLF after the chunk's data
            }
            started = true;
            String size = line();
            int semicolon = size.indexOf(';');
            try {
                remaining = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size");
            }
            if (remaining < 0) {
                throw new IOException("bad chunk size");
            }
            if (remaining == 0) {
                while (!line().isEmpty()) {
                    // trailers
                }
                done = true;
                return -1;
            }
        }
        int n = in.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) {
            throw new EOFException("chunked body cut short");
        }
        remaining -= n;
        return n;
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("chunked body cut short");
            }
            if (line.size() > 8192) {
                throw new IOException("chunk line too long");
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }
}
