package dev.dockyard.application;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.RecordedEvents;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A resume of a runtime being recovered (its sandbox stopped while READY: an engine restart, a
 * killed executor) waits a little for the recovery, which is what OpenHands' clients mean by the
 * resume they send after its URL answered 503; after that it answers the runtime as it is, and
 * they poll it until it is ready.
 */
class RecoveryWaitTest {

    private final RecordedEvents<SandboxUnanswered> events = new RecordedEvents<>();
    private final Deque<RuntimeStatus> statuses = new ArrayDeque<>();
    private final Deque<Boolean> serving = new ArrayDeque<>();
    private final ExecutorOutages outages = new ExecutorOutages();
    private int probes;

    RecoveryWaitTest() {
        outages.unanswered = events;
        outages.journal = new ProvisioningJournal() {
            @Override
            public Optional<SandboxRuntime> find(String id) {
                // the last status stays once the queue has given the rest
                RuntimeStatus next = statuses.size() > 1 ? statuses.poll() : statuses.peek();
                return Optional.of(runtime(next));
            }
        };
        outages.executors = new ExecutorClient() {
            @Override
            public boolean isServing(SandboxRuntime runtime, URI endpoint) {
                probes++;
                return serving.size() > 1 ? serving.poll() : serving.peek();
            }
        };
    }

    private static SandboxRuntime runtime(RuntimeStatus status) {
        SandboxRuntime runtime = new SandboxRuntime("c1", "alice", "local", "dockyard/sandbox:latest", 1.0, 512, 60,
                Instant.EPOCH);
        runtime.reachableAt("http://127.0.0.1:1");
        runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "t", Instant.EPOCH);
        runtime.transitionTo(RuntimeStatus.READY, "t", Instant.EPOCH);
        if (status != RuntimeStatus.READY) {
            runtime.transitionTo(status, "the reconciler's words", Instant.EPOCH);
        }
        return runtime;
    }

    @Test
    void shouldTellARuntimeBeingRecoveredFromOneThatServesOrIsPaused() {
        serving.add(false);
        assertTrue(outages.recovering(runtime(RuntimeStatus.READY)), "READY, its server gone");
        assertTrue(outages.recovering(runtime(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED)));
        assertFalse(outages.recovering(runtime(RuntimeStatus.PAUSED)));
        serving.clear();
        serving.add(true);
        assertFalse(outages.recovering(runtime(RuntimeStatus.READY)));
    }

    /** The probe carries the session key: not to an address the sandbox no longer publishes. */
    @Test
    void shouldNotProbeAnExecutorWhereItsSandboxNoLongerPublishes() {
        FakeNodes nodes = new FakeNodes("local");
        outages.nodes = nodes;
        SandboxRuntime runtime = runtime(RuntimeStatus.READY);
        runtime.assignNode("local");
        nodes.backend("local").addressLost(runtime.containerName(), true);
        serving.add(true); // what the executor's probe would say: never asked

        assertTrue(outages.recovering(runtime), "its address no longer its sandbox's: being recovered");
        assertEquals(0, probes, "no probe was sent");
    }

    @Test
    void shouldWaitUntilTheRuntimeServesAgainHavingAskedTheReconcilerForAPass() {
        statuses.addAll(List.of(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, RuntimeStatus.ERROR_RUNTIME_DISCONNECTED,
                RuntimeStatus.READY));
        serving.addAll(List.of(false, true)); // READY a moment before its executor answers

        SandboxRuntime back = outages.awaitRecovered("c1", Duration.ofSeconds(10));

        assertEquals(RuntimeStatus.READY, back.status());
        assertTrue(serving.size() == 1 && serving.peek(), "asked until it served");
        assertEquals(List.of(new SandboxUnanswered("c1")), events.fired());
    }

    @Test
    void shouldAnswerTheRuntimeStillBeingRecoveredOnceTheWaitIsOver() {
        statuses.add(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED);

        long start = System.nanoTime();
        SandboxRuntime still = outages.awaitRecovered("c1", Duration.ofMillis(600));

        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, still.status(), "the caller polls on from there");
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 3000, "bounded by the wait");
    }

    @Test
    void shouldAnswerWhatTheRecoveryMadeOfTheRuntimeAtOnce() {
        statuses.addAll(List.of(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, RuntimeStatus.PAUSED));

        SandboxRuntime found = outages.awaitRecovered("c1", Duration.ofSeconds(10));

        assertEquals(RuntimeStatus.PAUSED, found.status(), "found frozen: the resume thaws it as any paused runtime");
    }
}
