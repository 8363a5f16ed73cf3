package dev.dockyard.http;

import java.io.IOException;
import java.io.InputStream;

/**
 * A body of announced length read into one array of that length, one copy: growing a buffer (or
 * {@code readNBytes(int)}, which gathers 8 KB pieces and copies them once more) allocated a
 * megabyte's file write three to four times over (JFR, 2026-12-01). An announced length is taken
 * on trust for one allocation only up to a bound given by the caller; past it the body is read as
 * it comes, so a peer that announces much and sends little costs no more than it sends.
 */
public final class DeclaredBodies {

    private DeclaredBodies() {
    }

    /**
     * The body of {@code declared} bytes; fewer is an {@link IOException} naming how many came.
     * Past {@code presizedUpTo} it is read in pieces as it comes.
     */
    public static byte[] read(InputStream in, int declared, int presizedUpTo) throws IOException {
        byte[] body;
        if (declared <= presizedUpTo) {
            body = new byte[declared];
            int n = in.readNBytes(body, 0, declared);
            if (n < declared) {
                throw new IOException("the body ended after " + n + " of its " + declared + " bytes");
            }
        } else {
            body = in.readNBytes(declared);
            if (body.length < declared) {
                throw new IOException("the body ended after " + body.length + " of its " + declared + " bytes");
            }
        }
        return body;
    }
}
