package dev.dockyard.proxy;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what passes through a stream, for the traffic report; safe to read from another thread
 * (the HTTP client reads request bodies on its own threads).
 */
final class ByteCounter extends FilterInputStream {

    private final AtomicLong count = new AtomicLong();

    ByteCounter(InputStream in) {
        super(in);
    }

    long count() {
        return count.get();
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            count.incrementAndGet();
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
            count.addAndGet(n);
        }
        return n;
    }
}
