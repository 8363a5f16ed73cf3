package dev.dockyard.executor.envd;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One client's server stream (a Start, a Connect, a WatchDir): the messages a producer (a
 * process's output readers, a directory watch) hands it, written to the client by the thread
 * answering the request, one envelope at a time, each flushed. The queue is bounded, so a slow
 * client holds its producer back as a pipe would (for {@link #STALLED} at most, then that client's
 * stream ends with {@code resource_exhausted}); when the client goes away the stream closes and
 * drops whatever comes after. A keep-alive message goes out after every interval without another
 * message (the SDK's HTTP client drops a body silent for 300 s).
 */
final class EventStream {

    private static final int CAPACITY = 256;
    private static final Object SUCCESS = new Object();
    /** How long a client may take nothing before its stream is ended. */
    static final Duration STALLED = Duration.ofSeconds(30);

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(CAPACITY);
    private volatile boolean closed;

    /** Queues a message; dropped when the client has gone. Waits while the client is behind. */
    void send(JsonObject message) {
        put(message);
    }

    /** Ends the stream: successfully (null) or with an error in the end-stream envelope. */
    void end(ConnectError error) {
        put(error == null ? SUCCESS : error);
    }

    private void put(Object item) {
        if (closed) {
            return;
        }
        try {
            // a client behind holds its producer back as a pipe would, for a while: one that takes
            // nothing for STALLED is ended, so a process's output and end go on to the others
            long deadline = System.nanoTime() + STALLED.toNanos();
            while (!closed && !queue.offer(item, 1, TimeUnit.SECONDS)) {
                if (System.nanoTime() > deadline) {
                    closed = true;
                    queue.clear();
                    queue.offer(new ConnectError("resource_exhausted", "the client took nothing for "
                            + STALLED.toSeconds() + " s"));
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the client has gone (or the stream ended): producers stop sending to it. */
    boolean closed() {
        return closed;
    }

    /**
     * Writes the stream until it ends, the client goes away, or {@code timeout} (null: none)
     * passes, which ends it with {@code deadline_exceeded}. {@code keepalive} is sent after
     * {@code interval} without a message.
     */
    void writeTo(OutputStream out, Duration interval, JsonObject keepalive, Duration timeout) throws IOException {
        long start = System.nanoTime();
        try {
            while (true) {
                long wait = interval.toNanos();
                if (timeout != null) {
                    long left = timeout.toNanos() - (System.nanoTime() - start);
                    if (left <= 0) {
                        ConnectWire.writeEnd(out, new ConnectError("deadline_exceeded", "the stream's deadline passed"));
                        return;
                    }
                    wait = Math.min(wait, left);
                }
                Object item = queue.poll(wait, TimeUnit.NANOSECONDS);
                if (item == null) {
                    if (timeout == null || System.nanoTime() - start < timeout.toNanos()) {
                        ConnectWire.writeMessage(out, keepalive);
                    }
                } else if (item == SUCCESS) {
                    ConnectWire.writeEnd(out, null);
                    return;
                } else if (item instanceof ConnectError error) {
                    ConnectWire.writeEnd(out, error);
                    return;
                } else {
                    ConnectWire.writeMessage(out, (JsonObject) item);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closed = true;
            queue.clear();
        }
    }
}
