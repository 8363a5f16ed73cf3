package dev.dockyard.backend;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The standard output of a tar(1) making an archive, as a stream whose end is tar's exit status:
 * an archive tar could not make whole (a file it could not read, a directory that was not there)
 * ends in an {@link IOException} naming what tar said, never in a quiet end that would pass for a
 * complete copy. What tar says on its standard error is kept, bounded; the rest is read and
 * dropped so that tar never blocks on it.
 *
 * <p>A reader that closes the stream before its end wanted no more: tar is then killed, and its
 * status counts only if it had already exited.
 */
public final class TarStream extends FilterInputStream {

    /** How much of tar's complaint reaches the message. */
    static final int KEPT = 2048;

    private final Process tar;
    private final Thread drain;
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();
    private boolean ended;
    private IOException failure;

    private TarStream(Process tar) {
        super(tar.getInputStream());
        this.tar = tar;
        this.drain = new Thread(this::keepWhatTarSays, "tar-stderr-" + tar.pid());
        drain.setDaemon(true);
        drain.start();
    }

    /** Starts {@code command} (a tar writing its archive to its standard output), its input closed. */
    public static TarStream start(ProcessBuilder command) throws IOException {
        Process tar = command.redirectError(ProcessBuilder.Redirect.PIPE).start();
        tar.getOutputStream().close();
        return new TarStream(tar);
    }

    private void keepWhatTarSays() {
        byte[] buffer = new byte[1024];
        try (InputStream errors = tar.getErrorStream()) {
            for (int n = errors.read(buffer); n >= 0; n = errors.read(buffer)) {
                synchronized (said) {
                    said.write(buffer, 0, Math.max(0, Math.min(n, KEPT + 1 - said.size())));
                }
            }
        } catch (IOException e) {
            // tar is gone: what it said so far is all there is
        }
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b < 0) {
            end();
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n < 0) {
            end();
        }
        return n;
    }

    /** At the end of the archive: tar's status, once, and its failure every time it is asked again. */
    private void end() throws IOException {
        if (!ended) {
            ended = true;
            failure = failureOf(tar);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private IOException failureOf(Process process) {
        try {
            if (!process.waitFor(1, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                return new IOException("tar did not exit after the end of its archive");
            }
            drain.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return new IOException("interrupted while waiting for tar");
        }
        if (process.exitValue() == 0) {
            return null;
        }
        String text;
        synchronized (said) {
            text = said.toString(StandardCharsets.UTF_8);
        }
        if (text.length() > KEPT) {
            text = text.substring(0, KEPT) + "…";
        }
        return new IOException("tar exited with status " + process.exitValue()
                + (text.isBlank() ? "" : ": " + text.strip()));
    }

    @Override
    public void close() throws IOException {
        boolean finished = ended || !tar.isAlive();
        super.close();
        if (!finished) {
            tar.destroyForcibly();
            return;
        }
        end();
    }
}
