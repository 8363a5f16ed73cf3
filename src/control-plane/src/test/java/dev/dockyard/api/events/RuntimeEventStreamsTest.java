package dev.dockyard.api.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeProgress;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.ws.rs.core.GenericType;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Event streams on hand-run tasks: what a stream sends, in order, and that nothing runs while it idles. */
class RuntimeEventStreamsTest {

    private static final String ID = "rt-1";

    private final List<Runnable> tasks = new ArrayList<>();
    private final List<Object> statusFollowers = new ArrayList<>();
    private final List<StatusChange> history = new ArrayList<>();
    private final FakeSink sink = new FakeSink();
    private Consumer<StatusChange> follower;
    private Consumer<RuntimeProgress> progressFollower;
    private int unfollowed;

    private final RuntimeEventStreams streams = new RuntimeEventStreams() {
        @Override
        void run(Runnable task) {
            tasks.add(task);
        }

        @Override
        synchronized void startKeepAlive() {
            // the test pings by hand
        }
    };

    @BeforeEach
    void wire() {
        streams.statusEvents = new StatusEvents() {
            @Override
            public AutoCloseable follow(String runtimeId, Consumer<StatusChange> listener) {
                follower = listener;
                statusFollowers.add(listener);
                return () -> unfollowed++;
            }

            @Override
            public AutoCloseable followProgress(String runtimeId,
                                                Consumer<RuntimeProgress> listener) {
                progressFollower = listener;
                return () -> unfollowed++;
            }
        };
        streams.runtimes = new RuntimeQueries(new FakeRuntimes() {
            @Override
            public List<StatusChange> history(String runtimeId) {
                return history;
            }
        });
    }

    private void runTasks() {
        while (!tasks.isEmpty()) {
            tasks.remove(0).run();
        }
    }

    private static StatusChange change(RuntimeStatus status) {
        return new StatusChange(ID, status, status.name().toLowerCase(), Instant.EPOCH);
    }

    @Test
    void shouldSendHistoryThenLiveChangesOnceEachAndEndAfterStopped() {
        StatusChange starting = change(RuntimeStatus.STARTING_RUNTIME);
        history.add(starting);
        streams.open(ID, sink, new FakeSse());
        // committed while the history was being read: in both, sent once
        follower.accept(starting);
        StatusChange ready = change(RuntimeStatus.READY);
        follower.accept(ready);
        progressFollower.accept(new RuntimeProgress(ID, "b1", 1, 3, "RUN apt-get"));
        assertEquals(1, tasks.size(), "one task per stream at a time");

        runTasks();
        assertEquals(List.of("status:STARTING_RUNTIME", "status:READY", "progress"), sink.names());
        assertTrue(tasks.isEmpty(), "an idle stream holds no task and no thread");
        assertEquals(1, streams.openStreams());

        streams.ping();
        runTasks();
        assertEquals("comment", sink.names().get(3));

        follower.accept(change(RuntimeStatus.STOPPED));
        runTasks();
        assertEquals("status:STOPPED", sink.names().get(4));
        assertTrue(sink.closed, "the stream ends after STOPPED");
        assertEquals(2, unfollowed, "stops following changes and progress");
        assertEquals(0, streams.openStreams());
    }

    @Test
    void shouldEndStreamWhoseClientLeft() {
        history.add(change(RuntimeStatus.READY));
        streams.open(ID, sink, new FakeSse());
        runTasks();
        sink.closed = true;

        streams.ping();
        runTasks();

        assertEquals(List.of("status:READY"), sink.names(), "nothing is sent to a client that left");
        assertEquals(0, streams.openStreams());
        assertEquals(2, unfollowed);
        assertFalse(statusFollowers.isEmpty());
    }

    static final class FakeSink implements SseEventSink {
        final List<OutboundSseEvent> sent = new ArrayList<>();
        boolean closed;

        List<String> names() {
            return sent.stream().map(e -> e.getComment() != null ? "comment"
                    : "status".equals(e.getName()) ? "status:" + e.getData().toString().replaceAll(
                    ".*\"status\":\"([A-Z_]+)\".*", "$1") : e.getName()).toList();
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public CompletionStage<?> send(OutboundSseEvent event) {
            sent.add(event);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    static final class FakeSse implements Sse {
        @Override
        public OutboundSseEvent.Builder newEventBuilder() {
            return new Event();
        }

        @Override
        public SseBroadcaster newBroadcaster() {
            throw new UnsupportedOperationException();
        }
    }

    /** Builder and event at once: enough of both for what the streams send (RuntimeFeedTest too). */
    static final class Event implements OutboundSseEvent.Builder, OutboundSseEvent {
        private String id;
        private String name;
        private String comment;
        private Object data;
        private MediaType mediaType;

        @Override
        public OutboundSseEvent.Builder id(String value) {
            this.id = value;
            return this;
        }

        @Override
        public OutboundSseEvent.Builder name(String value) {
            this.name = value;
            return this;
        }

        @Override
        public OutboundSseEvent.Builder reconnectDelay(long milliseconds) {
            return this;
        }

        @Override
        public OutboundSseEvent.Builder mediaType(MediaType value) {
            this.mediaType = value;
            return this;
        }

        @Override
        public OutboundSseEvent.Builder comment(String value) {
            this.comment = value;
            return this;
        }

        @Override
        @SuppressWarnings("rawtypes")
        public OutboundSseEvent.Builder data(Class type, Object value) {
            this.data = value;
            return this;
        }

        @Override
        @SuppressWarnings("rawtypes")
        public OutboundSseEvent.Builder data(GenericType type, Object value) {
            this.data = value;
            return this;
        }

        @Override
        public OutboundSseEvent.Builder data(Object value) {
            this.data = value;
            return this;
        }

        @Override
        public OutboundSseEvent build() {
            return this;
        }

        @Override
        public Class<?> getType() {
            return String.class;
        }

        @Override
        public Type getGenericType() {
            return String.class;
        }

        @Override
        public MediaType getMediaType() {
            return mediaType;
        }

        @Override
        public Object getData() {
            return data;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getComment() {
            return comment;
        }

        @Override
        public long getReconnectDelay() {
            return -1;
        }

        @Override
        public boolean isReconnectDelaySet() {
            return false;
        }
    }
}
