package dev.dockyard.api.events;

import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client's {@code text/event-stream}, fed from a queue: what arrives for it (on whichever thread
 * committed it) is queued, and a short task on an executor sends it — one task per stream at a time,
 * so events keep their order and an open stream holds no thread. A {@link #PING} sends a comment,
 * which keeps proxies from closing an idle stream and shows whether the client left; a client that
 * left ends the stream on the next item. A subclass says how an item becomes events
 * ({@link #deliver}) and may send something first ({@link #first}, e.g. a history); nothing is
 * sent before the stream is {@link #start}ed.
 */
abstract class QueuedEventStream {

    /** The keep-alive item: a comment to the client. */
    static final Object PING = new Object();

    private static final Logger LOG = Logger.getLogger(QueuedEventStream.class.getName());

    protected final Sse sse;
    private final SseEventSink sink;
    private final String pingComment;
    private final Executor runner;
    private final Consumer<QueuedEventStream> onClose;
    private final Queue<Object> pending = new ConcurrentLinkedQueue<>();
    /** Held by whichever task sends now, and by the stream itself until it is {@link #start}ed. */
    private final AtomicBoolean sending = new AtomicBoolean(true);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<AutoCloseable> subscriptions = new CopyOnWriteArrayList<>();
    private volatile boolean ended;
    private volatile boolean gone;

    /** @param onClose told once when the stream ends, e.g. to forget it */
    QueuedEventStream(SseEventSink sink, Sse sse, String pingComment, Executor runner,
                      Consumer<QueuedEventStream> onClose) {
        this.sink = sink;
        this.sse = sse;
        this.pingComment = pingComment;
        this.runner = runner;
        this.onClose = onClose;
    }

    /** Released when the stream ends: a subscription that feeds it. */
    void hold(AutoCloseable subscription) {
        subscriptions.add(subscription);
    }

    /**
     * Sends {@link #first} on the calling thread, and hands what queued meanwhile to the executor.
     * Called on the request's thread, so the client has the
     * answer's headers and its first event at once: on the executor they could wait behind
     * provisioning tasks, and a client waiting for a stream to open has no way to tell a slow server
     * from a dead one. The rest goes to the executor so that a busy feed does not keep the request's
     * thread.
     */
    void start() {
        try {
            first();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "the client went away mid-send", e);
            ended = true;
        } finally {
            release();
        }
    }

    /** Queues an item (or {@link #PING}); dropped once the stream has ended. */
    void offer(Object item) {
        if (ended) {
            return;
        }
        pending.add(item);
        if (sending.compareAndSet(false, true)) {
            submit();
        }
    }

    /** Sends what comes before the queue; runs once, when the stream is {@link #start}ed. */
    protected void first() {
    }

    /** Sends one queued item; may {@link #end} the stream. */
    protected abstract void deliver(Object item);

    /** Ends the stream once the current task is done. */
    protected final void end() {
        ended = true;
    }

    protected final boolean ended() {
        return ended;
    }

    /** Sends the keep-alive comment. */
    protected final void ping() {
        send(sse.newEventBuilder().comment(pingComment).build());
    }

    protected final void send(OutboundSseEvent event) {
        sink.send(event).exceptionally(error -> {
            gone = true;
            return null;
        });
    }

    private void submit() {
        try {
            runner.execute(this::drain);
        } catch (RuntimeException rejected) {
            // the server is stopping
            close();
        }
    }

    private void drain() {
        try {
            Object next;
            while (!ended && (next = pending.poll()) != null) {
                if (gone || sink.isClosed()) {
                    ended = true;
                } else if (next == PING) {
                    ping();
                } else {
                    deliver(next);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "the client went away mid-send", e);
            ended = true;
        } finally {
            release();
        }
    }

    /**
     * After a send, by whoever held {@link #sending}: the stream closes if it ended, else the next
     * item's task may go, and one is started now for items that queued meanwhile.
     */
    private void release() {
        if (ended) {
            close();
            return;
        }
        sending.set(false);
        if (!pending.isEmpty() && sending.compareAndSet(false, true)) {
            submit();
        }
    }

    /** Ends the stream now: its subscriptions released, its client's connection closed. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ended = true;
        onClose.accept(this);
        for (AutoCloseable subscription : subscriptions) {
            try {
                subscription.close();
            } catch (Exception e) {
                LOG.log(Level.FINE, "nothing to release", e);
            }
        }
        try {
            sink.close();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "the stream was closed already", e);
        }
    }
}
