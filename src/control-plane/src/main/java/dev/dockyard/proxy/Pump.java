package dev.dockyard.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Copies a stream as it arrives: whatever one read returns is written and flushed at once, so an
 * event stream or a WebSocket frame reaches the other side when the sandbox produces it, and
 * nothing larger than the buffer is ever held.
 */
final class Pump {

    static final int BUFFER = 64 * 1024;

    private Pump() {
    }

    /**
     * Copies until the end of {@code in}; returns the bytes copied. An IOException from either
     * side ends the copy; {@link Failure#reading()} tells which side it was.
     */
    static long copy(InputStream in, OutputStream out) throws Failure {
        return copy(in, out, null);
    }

    /** Watches what a copy passes, after it was written. */
    interface Observer {
        void copied(byte[] bytes, int offset, int length);
    }

    /** As {@link #copy(InputStream, OutputStream)}, showing every piece to {@code observer} (may be null). */
    static long copy(InputStream in, OutputStream out, Observer observer) throws Failure {
        byte[] buffer = new byte[BUFFER];
        long total = 0;
        while (true) {
            int n;
            try {
                n = in.read(buffer);
            } catch (IOException e) {
                throw new Failure(true, total, e);
            }
            if (n < 0) {
                return total;
            }
            try {
                out.write(buffer, 0, n);
                out.flush();
            } catch (IOException e) {
                throw new Failure(false, total, e);
            }
            total += n;
            if (observer != null) {
                observer.copied(buffer, 0, n);
            }
        }
    }

    /** A copy cut short, with the bytes copied before. */
    static final class Failure extends IOException {
        private final boolean reading;
        private final long copied;

        Failure(boolean reading, long copied, IOException cause) {
            super((reading ? "reading" : "writing") + " failed after " + copied + " bytes", cause);
            this.reading = reading;
            this.copied = copied;
        }

        boolean reading() {
            return reading;
        }

        long copied() {
            return copied;
        }
    }
}
