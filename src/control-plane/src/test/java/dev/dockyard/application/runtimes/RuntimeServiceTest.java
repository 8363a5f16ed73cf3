package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.lifecycle.PauseResume;
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

            @Override
            public boolean isMigrating(String runtimeId) {
                return false;
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

    @Test
    void shouldAskToRetryAPauseOfAStoppedSandboxOrOneTooBusyToFreeze() {
        // the soak's full run: a pause of a sandbox whose executor had just exited was a 502 from the engine
        service.pauses = new PauseResume() {
            @Override
            public SandboxRuntime pause(String runtimeId) {
                throw new SandboxNotRunningException("container 'dockyard-x' is not running", null);
            }
        };
        Refused stopped = assertThrows(Refused.class, () -> service.pause("rt-1"));
        assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, stopped.reason());
        assertEquals(2, stopped.retryAfterSeconds());
        assertTrue(stopped.getMessage().contains("its sandbox has stopped"), stopped.getMessage());

        service.pauses = new PauseResume() {
            @Override
            public SandboxRuntime pause(String runtimeId) {
                throw new SandboxBusyException("the container's processes could not all be frozen in 5 tries", null);
            }
        };
        Refused busy = assertThrows(Refused.class, () -> service.pause("rt-1"));
        assertEquals(Refused.Reason.CONFLICT, busy.reason());
        assertEquals(1, busy.retryAfterSeconds());
    }
}
