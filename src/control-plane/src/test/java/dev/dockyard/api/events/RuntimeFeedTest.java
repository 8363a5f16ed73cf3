package dev.dockyard.api.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The stream of every runtime's transitions on hand-run tasks: who sees what, and what it says. */
class RuntimeFeedTest {

    private final List<Runnable> tasks = new ArrayList<>();
    private final List<Consumer<StatusChange>> listeners = new ArrayList<>();
    private final StatusEvents statusEvents = new StatusEvents() {
        @Override
        public AutoCloseable followAll(Consumer<StatusChange> listener) {
            listeners.add(listener);
            return () -> listeners.remove(listener);
        }
    };
    private final SandboxRuntime alices = new SandboxRuntime("conv-a", "alice", "fake", "img", 1.0, 512, 60, Instant.EPOCH);
    private final SandboxRuntime bobs = new SandboxRuntime("conv-b", "bob", "fake", "img", 1.0, 512, 60, Instant.EPOCH);

    private final RuntimeFeed feed = new RuntimeFeed() {
        @Override
        void run(Runnable task) {
            tasks.add(task);
        }

        @Override
        synchronized void startKeepAlive() {
            // no timer in a unit test
        }
    };

    @BeforeEach
    void wire() {
        Map<String, SandboxRuntime> known = Map.of(alices.id(), alices, bobs.id(), bobs);
        feed.statusEvents = statusEvents;
        feed.runtimes = new RuntimeQueries(new FakeRuntimes() {
            @Override
            public Optional<SandboxRuntime> find(String id) {
                return Optional.ofNullable(known.get(id));
            }
        });
    }

    private void runTasks() {
        while (!tasks.isEmpty()) {
            tasks.remove(0).run();
        }
    }

    private void commit(SandboxRuntime runtime, RuntimeStatus status) {
        StatusChange change = new StatusChange(runtime.id(), status, "now " + status, Instant.EPOCH);
        List.copyOf(listeners).forEach(l -> l.accept(change));
    }

    private static JsonObject data(RuntimeEventStreamsTest.FakeSink sink, int index) {
        try (var reader = Json.createReader(new StringReader(sink.sent.get(index).getData().toString()))) {
            return reader.readObject();
        }
    }

    @Test
    void shouldSendAdminsEveryRuntimesTransitionsWithOwnerAndUsersOnlyTheirOwn() {
        RuntimeEventStreamsTest.FakeSink admin = new RuntimeEventStreamsTest.FakeSink();
        RuntimeEventStreamsTest.FakeSink alice = new RuntimeEventStreamsTest.FakeSink();
        feed.open(null, admin, new RuntimeEventStreamsTest.FakeSse());
        feed.open("alice", alice, new RuntimeEventStreamsTest.FakeSse());
        runTasks();

        commit(alices, RuntimeStatus.READY);
        commit(bobs, RuntimeStatus.READY);
        commit(bobs, RuntimeStatus.PAUSED);
        runTasks();

        assertEquals(List.of("comment", "status:READY", "status:READY", "status:PAUSED"), admin.names());
        assertEquals(List.of("comment", "status:READY"), alice.names());
        JsonObject first = data(alice, 1);
        assertEquals(alices.id(), first.getString("runtimeId"));
        assertEquals("alice", first.getString("userId"));
        assertEquals("now READY", first.getString("message"));
        assertTrue(first.isNull("node"));
        assertEquals("bob", data(admin, 3).getString("userId"));
        assertEquals(2, feed.openFeeds());
        assertTrue(tasks.isEmpty(), "an idle feed holds no task");
    }

    @Test
    void shouldStopFollowingWhenTheClientLeaves() {
        RuntimeEventStreamsTest.FakeSink sink = new RuntimeEventStreamsTest.FakeSink();
        feed.open(null, sink, new RuntimeEventStreamsTest.FakeSse());
        runTasks();
        sink.closed = true;

        commit(alices, RuntimeStatus.READY);
        runTasks();
        commit(alices, RuntimeStatus.STOPPED);
        runTasks();

        assertEquals(List.of("comment"), sink.names(), "nothing is sent to a client that left");
        assertEquals(0, feed.openFeeds());
        assertTrue(listeners.isEmpty(), "no longer follows every runtime");
        assertTrue(tasks.isEmpty(), "nothing is queued for it");
    }

    @Test
    void shouldNotEndAfterARuntimeStops() {
        RuntimeEventStreamsTest.FakeSink sink = new RuntimeEventStreamsTest.FakeSink();
        feed.open("bob", sink, new RuntimeEventStreamsTest.FakeSse());
        commit(bobs, RuntimeStatus.STOPPED);
        commit(bobs, RuntimeStatus.ERROR);
        runTasks();
        assertEquals(List.of("comment", "status:STOPPED", "status:ERROR"), sink.names());
        assertNull(sink.sent.get(0).getName());
        assertEquals(1, feed.openFeeds());
    }

    @Test
    void shouldOpenOnTheRequestsThreadWithoutWaitingForTheExecutor() {
        RuntimeEventStreamsTest.FakeSink sink = new RuntimeEventStreamsTest.FakeSink();
        feed.open("alice", sink, new RuntimeEventStreamsTest.FakeSse());
        // no task has run: a busy executor cannot keep a client from seeing the stream open
        assertEquals(List.of("comment"), sink.names());
        assertTrue(tasks.isEmpty(), "nothing waits on the executor");
        commit(alices, RuntimeStatus.READY);
        runTasks();
        assertEquals(List.of("comment", "status:READY"), sink.names());
    }
}
