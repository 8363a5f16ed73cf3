package dev.dockyard.application;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.StatusEvents;
import dev.dockyard.runtime.provisioning.Provisioner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code Prefer: wait}: answered by the change that settles the runtime or by the deadline, never by a waiting thread. */
class RuntimeServiceTest {

    private final SandboxRuntime provisioned = runtime();
    private final SandboxRuntime current = runtime();
    private final List<Consumer<StatusChange>> followers = new ArrayList<>();
    private final List<Duration> deadlines = new ArrayList<>();
    private final List<Runnable> due = new ArrayList<>();
    private final List<Duration> tails = new ArrayList<>();
    private boolean inFlight = true;
    private int closed;
    private final RuntimeService service = new RuntimeService() {
        @Override
        void handOff(Runnable task) {
            task.run();
        }
    };

    private static SandboxRuntime runtime() {
        return new SandboxRuntime("conv", "alice", "docker", "image", 1.0, 1024, 120, Instant.EPOCH);
    }

    @BeforeEach
    void wire() {
        service.provisioner = new Provisioner() {
            @Override
            public boolean isInFlight(String runtimeId) {
                return inFlight;
            }

            @Override
            public Optional<RuntimeStatus> awaitSettled(String runtimeId, Duration wait) {
                tails.add(wait);
                return Optional.of(RuntimeStatus.READY);
            }
        };
        service.statusEvents = new StatusEvents() {
            @Override
            public AutoCloseable follow(String runtimeId, Consumer<StatusChange> listener) {
                followers.add(listener);
                return () -> {
                    followers.remove(listener);
                    closed++;
                };
            }
        };
        service.runtimes = new RuntimeRepository() {
            @Override
            public Optional<SandboxRuntime> find(String id) {
                return Optional.of(current);
            }
        };
        service.deadlines = (delay, task) -> {
            deadlines.add(delay);
            due.add(task);
            return () -> due.remove(task);
        };
    }

    private void change(RuntimeStatus status) {
        StatusChange change = new StatusChange(provisioned.id(), status, "", Instant.EPOCH);
        List.copyOf(followers).forEach(f -> f.accept(change));
    }

    @Test
    void shouldAnswerWhenSettlingChangeCommits() throws Exception {
        CompletableFuture<SandboxRuntime> settled = service.settled(provisioned, Duration.ofSeconds(90))
                .toCompletableFuture();
        assertEquals(List.of(Duration.ofSeconds(90)), deadlines);

        change(RuntimeStatus.RUNTIME_STARTED);
        assertFalse(settled.isDone(), "still starting");
        assertTrue(tails.isEmpty());

        change(RuntimeStatus.READY);
        assertSame(current, settled.get(), "answers the runtime as it is now");
        assertEquals(1, tails.size(), "waits for the hand-over after READY, within what is left of the wait");
        assertTrue(tails.get(0).compareTo(Duration.ofSeconds(90)) <= 0 && !tails.get(0).isNegative());
        assertTrue(due.isEmpty(), "the deadline is cancelled");
        assertTrue(followers.isEmpty());
        assertEquals(1, closed);
    }

    @Test
    void shouldAnswerAtDeadlineWhenStillStarting() throws Exception {
        CompletableFuture<SandboxRuntime> settled = service.settled(provisioned, Duration.ofSeconds(5))
                .toCompletableFuture();
        change(RuntimeStatus.BUILDING_RUNTIME);

        List.copyOf(due).forEach(Runnable::run);

        assertSame(current, settled.get());
        assertTrue(followers.isEmpty(), "stops following");
    }

    @Test
    void shouldAnswerAtOnceWhenNothingIsInFlight() throws Exception {
        inFlight = false;

        assertSame(current, service.settled(provisioned, Duration.ofSeconds(60)).toCompletableFuture().get());
        assertTrue(followers.isEmpty());
        assertTrue(deadlines.isEmpty());
    }
}
