package dev.dockyard.backend.kubernetes;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A command's stdin in a pod, watched while one thread writes an archive into it. The writing
 * stops as soon as the command's exit status is back (tar may end early: the rest is not needed,
 * and a closed exec would never take it), or when the pod has taken nothing for the stall limit.
 *
 * <p>Why a guard: the exec's client queues what the API server has not read yet (up to 16 MB),
 * and a write waits while that queue is full, until it drains, the exec fails or the thread is
 * interrupted. The queue of a closed connection never drains, and an exec whose status came back
 * no longer fails, so without the guard a writer could wait forever. The writer is interrupted at
 * most once, and {@link #finish()} takes the interrupt back.
 */
final class StdinGuard extends FilterOutputStream {

    private static final long CHECK_MILLIS = 500;

    /**
     * A thread of the guard's own, ended by {@link #finish()}: not the common pool (on two cores it
     * has one worker, which the client's asynchronous work can hold for as long as a stall lasts),
     * and not a shared one that would outlive the application and hold its class loader.
     */
    private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "dockyard-pod-stdin-watch");
        thread.setDaemon(true);
        return thread;
    });

    private final Thread writer = Thread.currentThread();
    private final long stallNanos;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean ended;
    private volatile boolean stalled;
    private boolean finished;

    /** For the thread that will write; {@code exit} completes when the command's status is back. */
    StdinGuard(OutputStream stdin, CompletableFuture<Integer> exit, Duration stall) {
        super(stdin);
        this.stallNanos = stall.toNanos();
        exit.whenComplete((code, error) -> stop(false));
        watch.scheduleWithFixedDelay(this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        refuseWhenStopped();
        out.write(bytes, offset, length);
        lastProgress = System.nanoTime();
        refuseWhenStopped();
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void flush() throws IOException {
        refuseWhenStopped();
        out.flush();
    }

    /** Whether the writing was stopped because the pod took nothing for the stall limit. */
    boolean stalled() {
        return stalled;
    }

    /** Called by the writer when it is done: no stop after this, and an interrupt of ours is taken back. */
    synchronized void finish() {
        finished = true;
        watch.shutdownNow();
        if (ended || stalled) {
            Thread.interrupted();
        }
    }

    private void refuseWhenStopped() throws IOException {
        if (stalled) {
            throw new IOException("the pod took none of the archive for " + (stallNanos / 1_000_000_000) + " s");
        }
        if (ended) {
            throw new IOException("the command ended before the archive was all sent");
        }
    }

    /** The first reason to stop is the one: a stall found after tar's status does not replace it. */
    private synchronized void stop(boolean stall) {
        if (finished || ended || stalled) {
            return;
        }
        if (stall) {
            stalled = true;
        } else {
            ended = true;
        }
        writer.interrupt();
    }

    private void check() {
        if (System.nanoTime() - lastProgress > stallNanos) {
            stop(true);
        }
    }
}
