package dev.dockyard.backend.remote;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * An input stream written on demand: a read that finds nothing buffered asks the producer for one
 * more {@link #step} (which writes into {@link #sink}), so a conversion from one archive format to
 * another runs on the reader's thread, a step at a time, with nothing but one step's output held.
 */
abstract class PulledStream extends InputStream {

    private final ByteArrayOutputStream sink = new ByteArrayOutputStream();
    private byte[] chunk = new byte[0];
    private int position;
    private boolean done;

    /** Where a step writes. */
    protected final OutputStream sink() {
        return sink;
    }

    /** Writes more into {@link #sink} (perhaps nothing yet); false once everything has been written. */
    protected abstract boolean step() throws IOException;

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        while (position == chunk.length) {
            if (done) {
                return -1;
            }
            done = !step();
            chunk = sink.toByteArray();
            sink.reset();
            position = 0;
        }
        int n = Math.min(length, chunk.length - position);
        System.arraycopy(chunk, position, buffer, offset, n);
        position += n;
        return n;
    }
}
