package dev.dockyard.api.events;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeProgress;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code text/event-stream} of runtimes' transitions: a stream gets its runtime's history
 * first, then each change as it commits (one {@code status} event each, image build
 * {@code progress} between), and ends after STOPPED or ERROR.
 *
 * <p>Each stream is a {@link QueuedEventStream} (no thread held while open; a keep-alive comment
 * every {@link OpenEventStreams#KEEP_ALIVE}). Per-stream queues rather than an
 * {@code SseBroadcaster}: each stream starts from its own read of the history and skips changes
 * it already sent.
 */
@ApplicationScoped
public class RuntimeEventStreams {

    @Inject
    StatusEvents statusEvents;

    @Inject
    RuntimeQueries runtimes;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final OpenEventStreams open = new OpenEventStreams();

    /** Streams the runtime's transitions into {@code sink} until the runtime ends or the client leaves. */
    public void open(String runtimeId, SseEventSink sink, Sse sse) {
        Stream stream = new Stream(sink, sse);
        // followed before the history is read: a change committed in between is in one or the other
        stream.hold(statusEvents.follow(runtimeId, stream::offer));
        stream.hold(statusEvents.followProgress(runtimeId, stream::offer));
        try {
            stream.history = runtimes.history(runtimeId);
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        open.add(stream);
        startKeepAlive();
        stream.start();
    }

    /** Runs a stream's sending task; a short one, never a wait. */
    void run(Runnable task) {
        executor.execute(task);
    }

    /** Streams open now. */
    public int openStreams() {
        return open.size();
    }

    void startKeepAlive() {
        open.keepAlive(scheduler);
    }

    /** A keep-alive comment to every open stream; a stream whose client left ends on it. */
    void ping() {
        open.ping();
    }

    @PreDestroy
    void stop() {
        open.closeAll();
    }

    private final class Stream extends QueuedEventStream {
        /** Touched only by the sending task. */
        private final Set<String> sent = new HashSet<>();
        private List<StatusChange> history;

        Stream(SseEventSink sink, Sse sse) {
            super(sink, sse, "waiting", RuntimeEventStreams.this::run, open::remove);
        }

        @Override
        protected void first() {
            for (StatusChange change : history) {
                if (sendStatus(change)) {
                    break;
                }
            }
            history = null;
        }

        @Override
        protected void deliver(Object next) {
            if (next instanceof RuntimeProgress progress) {
                send(sse.newEventBuilder().name("progress").mediaType(MediaType.APPLICATION_JSON_TYPE)
                        .data(String.class, Jsonp.createObjectBuilder().add("build", progress.buildId())
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
            JsonObject data = Jsonp.createObjectBuilder().add("status", change.status().name())
                    .add("message", change.message() == null ? "" : change.message())
                    .add("at", change.at().toString()).build();
            send(sse.newEventBuilder().name("status").id(change.id()).mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(String.class, data.toString()).build());
            if (!change.status().isLive()) {
                end();
            }
            return ended();
        }
    }
}
