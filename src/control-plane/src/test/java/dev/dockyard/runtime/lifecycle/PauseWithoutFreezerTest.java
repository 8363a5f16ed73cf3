package dev.dockyard.runtime.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import org.junit.jupiter.api.Test;

/** A node without a freezer (Kubernetes): a pause hibernates, a resume is a cold boot. */
class PauseWithoutFreezerTest {

    private final Lifecycles lifecycles = new Lifecycles();

    @Test
    void shouldHibernateOnPauseAndColdBootOnResumeWhereNothingFreezes() {
        lifecycles.backend.withoutFreezer();
        SandboxRuntime runtime = lifecycles.ready(false, 0, 0);

        SandboxRuntime paused = lifecycles.pauses.pause(runtime.id());

        assertEquals(RuntimeStatus.HIBERNATED, paused.status());
        assertTrue(paused.statusMessage().contains("cannot freeze"), paused.statusMessage());
        assertEquals(Phase.EXITED, lifecycles.backend.phase(runtime.containerName()), "its pod is deleted");

        SandboxRuntime resumed = lifecycles.pauses.resume(runtime.id());

        assertEquals(RuntimeStatus.READY, resumed.status());
        assertEquals(Phase.RUNNING, lifecycles.backend.phase(runtime.containerName()));
        assertTrue(lifecycles.backend.calls().contains("revive " + runtime.containerName()),
                lifecycles.backend.calls().toString());
        assertEquals(1, lifecycles.configured.size(), "the cold-booted executor is configured again");
    }
}
