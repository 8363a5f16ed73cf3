package dev.dockyard.application;

import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.time.Duration;
import java.util.Optional;
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
 * The {@code text/event-stream} of every runtime's transitions a caller may see (admins: all, users:
 * their own), for lists that follow many runtimes at once (the console's). Unlike a runtime's own
 * stream ({@link RuntimeEventStreams}) it sends no history and never ends by itself: a client reads
 * the list first and applies the changes that follow. Each {@code status} event names the runtime,
 * its owner and node, so a list can place a runtime it has not seen yet.
 *
 * <p>Changes arrive on the committing thread; they are queued and sent by a short task on the
 * managed executor, one per stream at a time (which keeps their order and does the owner look-up
 * off that thread). A comment every {@link RuntimeEventStreams#KEEP_ALIVE} keeps proxies from
 * closing an idle stream and shows whether the client left.
 */
@ApplicationScoped
public class RuntimeFeed {

    private static final Logger LOG = Logger.getLogger(RuntimeFeed.class.getName());
    private static final Object PING = new Object();

    @Inject
    StatusEvents statusEvents;

    @Inject
    RuntimeRepository runtimes;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final Set<Feed> open = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> keepAlive;

    /**
     * Streams the transitions of runtimes owned by {@code ownerId} (null: every runtime) into
     * {@code sink} until the client leaves. A first comment tells the client the stream follows.
     */
    public void open(String ownerId, SseEventSink sink, Sse sse) {
        Feed feed = new Feed(ownerId, sink, sse);
        feed.following = statusEvents.followAll(feed::offer);
        open.add(feed);
        startKeepAlive();
        feed.offer(PING);
    }

    /** Feeds open now. */
    public int openFeeds() {
        return open.size();
    }

    /** Runs a feed's sending task; a short one, never a wait. */
    void run(Runnable task) {
        executor.execute(task);
    }

    synchronized void startKeepAlive() {
        if (keepAlive == null) {
            long every = RuntimeEventStreams.KEEP_ALIVE.toMillis();
            keepAlive = scheduler.scheduleAtFixedRate(() -> open.forEach(f -> f.offer(PING)), every, every,
                    TimeUnit.MILLISECONDS);
        }
    }

    @PreDestroy
    synchronized void stop() {
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        open.forEach(Feed::close);
    }

    private final class Feed {
        private final String ownerId;
        private final SseEventSink sink;
        private final Sse sse;
        private final Queue<Object> pending = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean sending = new AtomicBoolean();
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile boolean gone;
        AutoCloseable following;

        Feed(String ownerId, SseEventSink sink, Sse sse) {
            this.ownerId = ownerId;
            this.sink = sink;
            this.sse = sse;
        }

        void offer(Object item) {
            if (closed.get()) {
                return;
            }
            pending.add(item);
            if (sending.compareAndSet(false, true)) {
                try {
                    run(this::drain);
                } catch (RuntimeException rejected) {
                    // the server is stopping
                    close();
                }
            }
        }

        private void drain() {
            try {
                Object next;
                while (!closed.get() && (next = pending.poll()) != null) {
                    if (gone || sink.isClosed()) {
                        close();
                    } else if (next == PING) {
                        send(sse.newEventBuilder().comment("following").build());
                    } else if (next instanceof StatusChange change) {
                        sendVisible(change);
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "the client went away mid-send", e);
                close();
            } finally {
                sending.set(false);
                if (!closed.get() && !pending.isEmpty() && sending.compareAndSet(false, true)) {
                    run(this::drain);
                }
            }
        }

        private void sendVisible(StatusChange change) {
            Optional<SandboxRuntime> runtime = runtimes.find(change.runtimeId());
            String owner = runtime.map(SandboxRuntime::userId).orElse(null);
            if (ownerId != null && !ownerId.equals(owner)) {
                return;
            }
            JsonObjectBuilder data = Json.createObjectBuilder().add("runtimeId", change.runtimeId())
                    .add("status", change.status().name())
                    .add("message", change.message() == null ? "" : change.message())
                    .add("at", change.at().toString());
            if (owner == null) {
                data.addNull("userId");
            } else {
                data.add("userId", owner);
            }
            String node = runtime.map(SandboxRuntime::node).orElse(null);
            if (node == null) {
                data.addNull("node");
            } else {
                data.add("node", node);
            }
            send(sse.newEventBuilder().name("status").id(change.id()).mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(String.class, data.build().toString()).build());
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
            open.remove(this);
            try {
                if (following != null) {
                    following.close();
                }
            } catch (Exception e) {
                LOG.log(Level.FINE, "nothing to release", e);
            }
            try {
                sink.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "the stream was closed already", e);
            }
        }
    }
}
