package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.Provisioner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code Prefer: wait}: answered when the provisioning settles or at the deadline, never by a waiting thread. */
class RuntimeServiceTest {

    private final SandboxRuntime provisioned = runtime();
    private final SandboxRuntime current = runtime();
    private final List<Duration> deadlines = new ArrayList<>();
    private final List<Runnable> due = new ArrayList<>();
    private CompletableFuture<RuntimeStatus> settling = new CompletableFuture<>();
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
            public Optional<CompletionStage<RuntimeStatus>> whenSettled(String runtimeId) {
                return Optional.ofNullable(settling);
            }
        };
        service.runtimes = new FakeRuntimes() {
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

    @Test
    void shouldAnswerWhenTheProvisioningHasSettledAndHandedOver() throws Exception {
        CompletableFuture<SandboxRuntime> settled = service.settled(provisioned, Duration.ofSeconds(90))
                .toCompletableFuture();
        assertEquals(List.of(Duration.ofSeconds(90)), deadlines);
        assertFalse(settled.isDone(), "still provisioning");

        settling.complete(RuntimeStatus.READY);

        assertSame(current, settled.get(), "answers the runtime as it is now");
        assertTrue(due.isEmpty(), "the deadline is cancelled");
    }

    @Test
    void shouldAnswerAtDeadlineWhenStillStarting() throws Exception {
        CompletableFuture<SandboxRuntime> settled = service.settled(provisioned, Duration.ofSeconds(5))
                .toCompletableFuture();

        List.copyOf(due).forEach(Runnable::run);

        assertSame(current, settled.get());
        settling.complete(RuntimeStatus.READY);
        assertSame(current, settled.get(), "answered once");
    }

    @Test
    void shouldAnswerAtOnceWhenNothingIsInFlight() throws Exception {
        settling = null;

        assertSame(current, service.settled(provisioned, Duration.ofSeconds(60)).toCompletableFuture().get());
        assertTrue(deadlines.isEmpty());
    }
}
