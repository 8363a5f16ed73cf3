package dev.dockyard.application;

import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.runtime.RuntimeProgress;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code text/event-stream} of runtimes' transitions: a stream gets its runtime's history
 * first, then each change as it commits (one {@code status} event each, image build
 * {@code progress} between), and ends after STOPPED or ERROR.
 *
 * <p>An open stream holds no thread: what arrives for it is queued and a short task on the managed
 * executor sends it (one task per stream at a time, so events keep their order), and one timer
 * for all streams sends a comment every {@link #KEEP_ALIVE}, which keeps proxies from closing an
 * idle stream and shows whether the client left. Per-stream queues rather than an
 * {@code SseBroadcaster}: each stream starts from its own read of the history and skips changes
 * it already sent.
 */
@ApplicationScoped
public class RuntimeEventStreams {

    private static final Logger LOG = Logger.getLogger(RuntimeEventStreams.class.getName());

    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    private static final Object PING = new Object();

    @Inject
    StatusEvents statusEvents;

    @Inject
    RuntimeRepository runtimes;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final Set<Stream> open = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> keepAlive;

    /** Streams the runtime's transitions into {@code sink} until the runtime ends or the client leaves. */
    public void open(String runtimeId, SseEventSink sink, Sse sse) {
        Stream stream = new Stream(sink, sse);
        // followed before the history is read: a change committed in between is in one or the other
        stream.following = statusEvents.follow(runtimeId, stream::offer);
        stream.followingProgress = statusEvents.followProgress(runtimeId, stream::offer);
        List<StatusChange> history;
        try {
            history = runtimes.history(runtimeId);
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        open.add(stream);
        startKeepAlive();
        stream.start(history);
    }

    /** Runs a stream's sending task; a short one, never a wait. */
    void run(Runnable task) {
        executor.execute(task);
    }

    /** Streams open now. */
    public int openStreams() {
        return open.size();
    }

    synchronized void startKeepAlive() {
        if (keepAlive == null) {
            keepAlive = scheduler.scheduleAtFixedRate(this::ping, KEEP_ALIVE.toMillis(), KEEP_ALIVE.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** A keep-alive comment to every open stream; a stream whose client left ends on it. */
    void ping() {
        open.forEach(s -> s.offer(PING));
    }

    @PreDestroy
    synchronized void stop() {
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        open.forEach(Stream::close);
    }

    private final class Stream {
        private final SseEventSink sink;
        private final Sse sse;
        private final Queue<Object> pending = new ConcurrentLinkedQueue<>();
        /** Held by whichever task sends now; the first one (the history) holds it from the start. */
        private final AtomicBoolean sending = new AtomicBoolean(true);
        private final AtomicBoolean closed = new AtomicBoolean();
        /** Touched only by the task holding {@link #sending}. */
        private final Set<String> sent = new HashSet<>();
        private List<StatusChange> history;
        private volatile boolean ended;
        private volatile boolean gone;
        AutoCloseable following;
        AutoCloseable followingProgress;

        Stream(SseEventSink sink, Sse sse) {
            this.sink = sink;
            this.sse = sse;
        }

        void start(List<StatusChange> history) {
            this.history = history;
            submit();
        }

        void offer(Object item) {
            if (ended) {
                return;
            }
            pending.add(item);
            if (sending.compareAndSet(false, true)) {
                submit();
            }
        }

        private void submit() {
            try {
                run(this::drain);
            } catch (RuntimeException rejected) {
                // the server is stopping
                close();
            }
        }

        private void drain() {
            try {
                if (history != null) {
                    for (StatusChange change : history) {
                        if (sendStatus(change)) {
                            break;
                        }
                    }
                    history = null;
                }
                Object next;
                while (!ended && (next = pending.poll()) != null) {
                    deliver(next);
                }
            } catch (RuntimeException e) {
                // the client went away mid-send
                ended = true;
            } finally {
                if (ended) {
                    close();
                } else {
                    sending.set(false);
                    if (!pending.isEmpty() && sending.compareAndSet(false, true)) {
                        submit();
                    }
                }
            }
        }

        private void deliver(Object next) {
            if (gone || sink.isClosed()) {
                ended = true;
            } else if (next == PING) {
                send(sse.newEventBuilder().comment("waiting").build());
            } else if (next instanceof RuntimeProgress progress) {
                send(sse.newEventBuilder().name("progress").mediaType(MediaType.APPLICATION_JSON_TYPE)
                        .data(String.class, Json.createObjectBuilder().add("build", progress.buildId())
                                .add("step", progress.step()).add("steps", progress.steps())
                                .add("line", progress.line()).build().toString()).build());
            } else if (next instanceof StatusChange change) {
                sendStatus(change);
            }
        }

        /** Sends a change not sent yet; true when it ends the stream. */
        private boolean sendStatus(StatusChange change) {
            if (!sent.add(change.id())) {
                return false;
            }
            JsonObject data = Json.createObjectBuilder().add("status", change.status().name())
                    .add("message", change.message() == null ? "" : change.message())
                    .add("at", change.at().toString()).build();
            send(sse.newEventBuilder().name("status").id(change.id()).mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(String.class, data.toString()).build());
            if (!change.status().isLive()) {
                ended = true;
            }
            return ended;
        }

        private void send(OutboundSseEvent event) {
            sink.send(event).exceptionally(error -> {
                gone = true;
                return null;
            });
        }

        void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            ended = true;
            open.remove(this);
            for (AutoCloseable handle : new AutoCloseable[] {following, followingProgress}) {
                try {
                    if (handle != null) {
                        handle.close();
                    }
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
}
