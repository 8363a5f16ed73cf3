package dev.dockyard.backend;

import java.time.Instant;

/**
 * A sandbox as the backend lists it by its labels, whatever the database says.
 *
 * @param phase what it is doing now: a frozen (paused) sandbox is alive, not stopped
 */
public record ManagedSandbox(String name, String runtimeId, String conversationId, Instant createdAt,
                             SandboxState.Phase phase) {

    public boolean running() {
        return phase == SandboxState.Phase.RUNNING;
    }

    public boolean paused() {
        return phase == SandboxState.Phase.PAUSED;
    }
}
