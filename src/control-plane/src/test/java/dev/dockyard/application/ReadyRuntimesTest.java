package dev.dockyard.application;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.Lifecycles;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Admission wakes what the idle lifecycle put to sleep, and only that. */
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

    @Test
    void shouldRefuseARuntimeTheUserPaused() {
        SandboxRuntime runtime = l.ready(false, 2, 0);
        SandboxRuntime paused = l.pauses.pause(runtime.id());

        Refused refused = assertThrows(Refused.class, () -> ready.admit(paused));

        assertEquals(Refused.Reason.RUNTIME_NOT_READY, refused.reason());
        assertEquals("\"PAUSED\"", refused.members().get("runtimeStatus").toString());
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()), "still frozen");
    }
}
