package dev.dockyard.api.events;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.Optional;

/**
 * The {@code text/event-stream} of every runtime's transitions a caller may see (admins: all, users:
 * their own), for lists that follow many runtimes at once (the console's). Unlike a runtime's own
 * stream ({@link RuntimeEventStreams}) it sends no history and never ends by itself: a client reads
 * the list first and applies the changes that follow. Each {@code status} event names the runtime,
 * its owner and node, so a list can place a runtime it has not seen yet.
 *
 * <p>Each feed is a {@link QueuedEventStream}: changes arrive on the committing thread and are
 * sent by a short task on the managed executor (which keeps their order and does the owner look-up
 * off that thread), with a keep-alive comment every {@link OpenEventStreams#KEEP_ALIVE}.
 */
@ApplicationScoped
public class RuntimeFeed {

    @Inject
    StatusEvents statusEvents;

    @Inject
    RuntimeQueries runtimes;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final OpenEventStreams open = new OpenEventStreams();

    /**
     * Streams the transitions of runtimes owned by {@code ownerId} (null: every runtime) into
     * {@code sink} until the client leaves. A first comment tells the client the stream follows.
     */
    public void open(String ownerId, SseEventSink sink, Sse sse) {
        Feed feed = new Feed(ownerId, sink, sse);
        feed.hold(statusEvents.followAll(feed::offer));
        open.add(feed);
        feed.start();
        startKeepAlive();
    }

    /** Feeds open now. */
    public int openFeeds() {
        return open.size();
    }

    /** Runs a feed's sending task; a short one, never a wait. */
    void run(Runnable task) {
        executor.execute(task);
    }

    void startKeepAlive() {
        open.keepAlive(scheduler);
    }

    @PreDestroy
    void stop() {
        open.closeAll();
    }

    private final class Feed extends QueuedEventStream {
        private final String ownerId;

        Feed(String ownerId, SseEventSink sink, Sse sse) {
            super(sink, sse, "following", RuntimeFeed.this::run, open::remove);
            this.ownerId = ownerId;
        }

        /** The first comment: the client knows the stream follows before any runtime changes. */
        @Override
        protected void first() {
            ping();
        }

        @Override
        protected void deliver(Object next) {
            if (!(next instanceof StatusChange change)) {
                return;
            }
            Optional<SandboxRuntime> runtime = runtimes.find(change.runtimeId());
            String owner = runtime.map(SandboxRuntime::userId).orElse(null);
            if (ownerId != null && !ownerId.equals(owner)) {
                return;
            }
            JsonObjectBuilder data = Jsonp.createObjectBuilder().add("runtimeId", change.runtimeId())
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
    }
}
