package dev.dockyard.runtime.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PauseResumeTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final FakeNodes nodes = new FakeNodes("local");
    private final FakeBackend backend = nodes.backend("local");
    private final RuntimeGates gates = new RuntimeGates();
    private final PauseResume pauses = new PauseResume();
    private SandboxRuntime runtime;

    @BeforeEach
    void wire() {
        pauses.journal = Journals.over(runtimes, clock, new RuntimeSecrets());
        pauses.nodes = nodes;
        pauses.gates = gates;
        pauses.activity = new Activity();
        pauses.activity.clock = clock;
        pauses.executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                return true;
            }
        };
        runtime = new SandboxRuntime("conv", "alice", "fake", "img", 1, 512, 60, clock.instant());
        runtime.assignNode("local");
        runtime.reachableAt("http://127.0.0.1:1");
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.READY, "ready", clock.instant()));
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);
    }

    @Test
    void shouldPauseAndResume() {
        assertEquals(RuntimeStatus.PAUSED, pauses.pause(runtime.id()).status());
        assertEquals(Phase.PAUSED, backend.phase(runtime.containerName()));
        assertEquals(RuntimeStatus.READY, pauses.resume(runtime.id()).status());
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()));
    }

    /** The soak's database stop (2026-11-30): a pause whose record failed left the runtime READY and frozen. */
    @Test
    void shouldThawASandboxWhosePauseCouldNotBeRecorded() {
        pauses.journal = new ProvisioningJournal() {
            @Override
            public Optional<SandboxRuntime> find(String id) {
                return runtimes.find(id);
            }

            @Override
            public boolean transitionIf(String id, Set<RuntimeStatus> from, RuntimeStatus next, String message,
                                        Consumer<SandboxRuntime> change) {
                throw new IllegalStateException("the database is out of reach");
            }
        };

        assertThrows(IllegalStateException.class, () -> pauses.pause(runtime.id()));

        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()), "READY, and so is its sandbox");
        assertEquals(RuntimeStatus.READY, runtimes.find(runtime.id()).orElseThrow().status());
    }

    @Test
    void shouldNeitherPauseNorThawARuntimeAMigrationHolds() {
        // the migration froze the source itself: a pause or a resume now would undo or be undone
        try (RuntimeGates.Pass migration = gates.beginMigration(runtime.id(), Duration.ofSeconds(1))) {
            backend.pause(runtime.containerName());

            RuntimeGates.RuntimeBusyException refused = assertThrows(RuntimeGates.RuntimeBusyException.class,
                    () -> pauses.pause(runtime.id()));
            assertTrue(refused.migrating());
            assertThrows(RuntimeGates.RuntimeBusyException.class, () -> pauses.resume(runtime.id()));

            assertEquals(Phase.PAUSED, backend.phase(runtime.containerName()), "the migration's freeze stands");
            assertEquals(RuntimeStatus.READY, runtimes.find(runtime.id()).orElseThrow().status());
        }
    }

    /**
     * The soak's node cut (2026-12-01 00:59): a pause reached the engine, which froze the sandbox,
     * and its answer was lost as the connection broke. The runtime stayed READY and frozen, and an
     * action waited out its 150 s on it. It is recorded PAUSED at once, asleep: the pause itself is
     * still the engine's failure (a 503 with Retry-After), so an agent may go on acting, and its
     * next action resumes it (the soak of 2026-12-01 03:45: recorded paused on request, its agent's
     * actions were refused until the end); a retry finds it paused, then paused on request.
     */
    @Test
    void shouldRecordARuntimePausedWhenItsPausesAnswerWasLostAndResumeIt() {
        backend.pauseAnswerLost(new EngineUnreachableException("the Docker engine of node 'local' does not answer",
                null));

        assertThrows(EngineUnreachableException.class, () -> pauses.pause(runtime.id()));

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.PAUSED, now.status(), now.statusMessage());
        assertEquals(PauseReason.IDLE, now.pauseReason(), "asleep: the next action resumes it");
        assertTrue(now.statusMessage().startsWith("Frozen for a pause with no answer from the engine"),
                now.statusMessage());
        assertEquals(Phase.PAUSED, backend.phase(runtime.containerName()), "the engine did freeze it");

        backend.pauseAnswerLost(null);
        SandboxRuntime retried = pauses.pause(runtime.id());
        assertEquals(RuntimeStatus.PAUSED, retried.status(), "the client's retry");
        assertEquals(PauseReason.REQUEST, retried.pauseReason(), "from the retry on, paused on request");
        assertEquals(RuntimeStatus.READY, pauses.resume(runtime.id()).status());
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()));
    }

    /** The idle lifecycle's own pauses have no caller told of a failure: an end time's keeps its reason. */
    @Test
    void shouldKeepAnEndTimesReasonWhenItsPausesAnswerWasLost() {
        backend.pauseAnswerLost(new EngineUnreachableException("the Docker engine of node 'local' does not answer",
                null));

        assertThrows(EngineUnreachableException.class, () -> pauses.pauseAdmitted(runtime.id(), PauseReason.END,
                "Paused at its end time"));

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.PAUSED, now.status(), now.statusMessage());
        assertEquals(PauseReason.END, now.pauseReason(), "no action wakes a runtime past its end time");
    }
}
