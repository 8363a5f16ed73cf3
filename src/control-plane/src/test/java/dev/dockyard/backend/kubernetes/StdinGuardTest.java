package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The guard on a pod command's stdin, against a stream that behaves as fabric8's exec input does
 * when the API server stops reading: a write waits for the client's queue to drain, polling, and
 * only an interrupt ends that wait.
 */
class StdinGuardTest {

    @Test
    @Timeout(30)
    void shouldStopAWaitingWriterWhenTheCommandEnds() throws Exception {
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        StdinGuard guard = new StdinGuard(new BackedUpStdin(), exit, Duration.ofMinutes(2));
        CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> exit.complete(2));

        IOException stopped;
        try {
            stopped = assertThrows(IOException.class, () -> guard.write(new byte[8192]));
        } finally {
            guard.finish();
        }

        assertEquals("the command ended before the archive was all sent", stopped.getMessage());
        assertFalse(guard.stalled());
        assertFalse(Thread.currentThread().isInterrupted(), "the guard's interrupt is taken back");
    }

    @Test
    @Timeout(30)
    void shouldFailAWriteThePodTakesNothingOfForTheStallLimit() throws Exception {
        StdinGuard guard = new StdinGuard(new BackedUpStdin(), new CompletableFuture<>(), Duration.ofSeconds(1));
        long started = System.nanoTime();

        IOException stalled;
        try {
            stalled = assertThrows(IOException.class, () -> guard.write(new byte[8192]));
        } finally {
            guard.finish();
        }

        assertTrue(guard.stalled());
        assertEquals("the pod took none of the archive for 1 s", stalled.getMessage());
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(waited >= 500 && waited < 10_000, "stopped after the stall limit: " + waited + " ms");
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    @Timeout(30)
    void shouldLetASlowButMovingWriterFinish() throws Exception {
        AtomicLong written = new AtomicLong();
        OutputStream slow = new OutputStream() {
            @Override
            public void write(int b) {
                written.incrementAndGet();
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new IOException("interrupted", e);
                }
                written.addAndGet(length);
            }
        };
        StdinGuard guard = new StdinGuard(slow, new CompletableFuture<>(), Duration.ofSeconds(2));

        // each write takes 300 ms, the whole 3 s: more than the stall limit, but never idle that long
        try {
            for (int i = 0; i < 10; i++) {
                guard.write(new byte[1024]);
            }
        } finally {
            guard.finish();
        }

        assertEquals(10 * 1024, written.get());
        assertFalse(guard.stalled());
    }

    @Test
    @Timeout(30)
    void shouldStopAtOnceWhenTheCommandHadAlreadyEnded() throws Exception {
        StdinGuard guard = new StdinGuard(new BackedUpStdin(), CompletableFuture.completedFuture(0),
                Duration.ofMinutes(2));
        try {
            assertThrows(IOException.class, () -> guard.write(new byte[8192]));
        } finally {
            guard.finish();
        }
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void shouldNotInterruptTheWriterOnceItHasFinished() throws Exception {
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        StdinGuard guard = new StdinGuard(OutputStream.nullOutputStream(), exit, Duration.ofSeconds(1));
        guard.write(new byte[10]);
        guard.finish();

        exit.complete(0);
        Thread.sleep(1500);

        assertFalse(Thread.currentThread().isInterrupted(), "tar's status after the writing is not the writer's concern");
    }

    /** fabric8's exec input with a full queue: waits in 50 ms steps until interrupted, then goes on. */
    private static final class BackedUpStdin extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            try {
                while (!Thread.interrupted()) {
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
