package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.Lifecycles;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Admission wakes what the idle lifecycle put to sleep, and only that; a sandbox its node paused on
 * its own (a remote node's) costs its node nothing while awake, and is resumed after its refusal.
 */
class ReadyRuntimesTest {

    private final Lifecycles l = new Lifecycles();
    private final ReadyRuntimes ready = new ReadyRuntimes();

    @BeforeEach
    void wire() {
        ready.gates = l.gates;
        ready.activity = l.activity;
        ready.idle = l.idle;
        ready.nodes = l.nodes;
    }

    @Test
    void shouldResumeAnIdlePausedRuntimeTransparentlyEvenFromAStaleView() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        // the caller read the runtime as READY before the sweep paused it
        SandboxRuntime stale = l.find(runtime.id());
        l.clock.advance(Duration.ofSeconds(3));
        l.idle.sweep();
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()));

        try (ReadyRuntimes.Admitted admitted = ready.admit(stale)) {
            assertEquals(RuntimeStatus.READY, admitted.runtime().status());
            assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));
        }
        assertTrue(l.find(runtime.id()).statusMessage().startsWith("Woken by an action"));
    }

    /**
     * A READY runtime whose sandbox no longer publishes its recorded address (stopped under an
     * engine restart) is being recovered: a 503 to retry, and its key is not sent there.
     */
    @Test
    void shouldAskToRetryARuntimeGoneFromItsAddressAndLetTheNextActionIn() {
        SandboxRuntime runtime = l.ready(false, 0, 0);
        l.backend.addressLost(runtime.containerName(), true);

        Refused refused = assertThrows(Refused.class, () -> ready.admit(l.find(runtime.id())));

        assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason());
        assertEquals(2, refused.retryAfterSeconds());
        l.backend.addressLost(runtime.containerName(), false);
        try (ReadyRuntimes.Admitted admitted = ready.admit(l.find(runtime.id()))) {
            assertEquals(RuntimeStatus.READY, admitted.runtime().status(), "the refusal let go of its pass");
        }
    }

    /** The soak's node cut (2026-12-01): an engine that could not confirm the address answered 502. */
    @Test
    void shouldAskToRetryWhenTheEngineCannotConfirmTheExecutorsAddress() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        l.backend.unanswering(true);

        Refused refused = assertThrows(Refused.class, () -> ready.admit(l.find(runtime.id())));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason(), refused.getMessage());
        assertEquals(EngineUnreachableException.RETRY_AFTER_SECONDS, refused.retryAfterSeconds());
        l.backend.unanswering(false);
        try (ReadyRuntimes.Admitted admitted = ready.admit(l.find(runtime.id()))) {
            assertEquals(RuntimeStatus.READY, admitted.runtime().status(), "the refusal let go of its pass");
        }
    }

    /**
     * The soak's node cut (2026-12-01): a READY runtime whose sandbox a lost pause had frozen took an
     * action that waited out its 150 s. A frozen sandbox does not serve: the action is refused at
     * once as one being recovered, and the reconciler is asked for a pass.
     */
    @Test
    void shouldRefuseAtOnceAnActionForAReadyRuntimeWhoseSandboxIsFrozen() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        l.backend.pause(runtime.containerName());

        Refused refused = assertThrows(Refused.class, () -> ready.admit(l.find(runtime.id())));

        assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason(), refused.getMessage());
        assertEquals(2, refused.retryAfterSeconds());
        assertTrue(refused.getMessage().contains("frozen"), refused.getMessage());
    }

    @Test
    void shouldRefuseARuntimeTheUserPaused() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        SandboxRuntime paused = l.pauses.pause(runtime.id());

        Refused refused = assertThrows(Refused.class, () -> ready.admit(paused));

        assertEquals(Refused.Reason.RUNTIME_NOT_READY, refused.reason());
        assertEquals("\"PAUSED\"", refused.members().get("runtimeStatus").toString());
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()), "still frozen");
    }

    @Test
    void shouldAskTheNodeNothingWhenAdmittingAndResumeWhatItPausedOnlyAfterItsRefusal() {
        l.backend.pausingOnItsOwn();
        SandboxRuntime runtime = l.ready(false, 0, 0);
        // its node paused it behind this control plane's back: READY here
        l.backend.pause(runtime.containerName());
        int before = l.backend.calls().size();

        try (ReadyRuntimes.Admitted admitted = ready.admit(l.find(runtime.id()))) {
            assertEquals(before, l.backend.calls().size(), "no call to the node: " + l.backend.calls());
            assertFalse(admitted.resumedAfterRefusal(200));
            assertFalse(admitted.resumedAfterRefusal(502));
            assertEquals(before, l.backend.calls().size(), "only a 503 asks the node");

            assertTrue(admitted.resumedAfterRefusal(503), "resumed there: the work goes once more");
            assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));
        }
        assertEquals(RuntimeStatus.READY, l.find(runtime.id()).status());
    }

    @Test
    void shouldLetA503StandOnANodeThatPausesNothingOnItsOwn() {
        SandboxRuntime runtime = l.ready(false, 0, 0);

        try (ReadyRuntimes.Admitted admitted = ready.admit(l.find(runtime.id()))) {
            assertFalse(admitted.resumedAfterRefusal(503));
        }
    }

    @Test
    void shouldResumeWhatItsNodePausedBeforeWorkThatCannotBeSentTwice() {
        l.backend.pausingOnItsOwn();
        SandboxRuntime runtime = l.ready(false, 0, 0);
        l.backend.pause(runtime.containerName());

        try (ReadyRuntimes.Admitted admitted = ready.admit(l.find(runtime.id()))) {
            admitted.awaken();
            assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));
        }
    }

    @Test
    void shouldRefuseToCarryTheSessionKeyToAPortAnotherProcessTook() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        l.backend.portTaken(runtime.containerName());

        Refused refused = assertThrows(Refused.class, () -> ready.admit(runtime));

        assertEquals(Refused.Reason.BACKEND_FAILED, refused.reason());
        assertTrue(refused.getMessage().contains("another process"), refused.getMessage());
    }
}
