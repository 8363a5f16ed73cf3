package dev.dockyard.backend;

/**
 * What a backend sees of a sandbox right now.
 *
 * @param exitCode  the exit code once it stopped, else null
 * @param logTail   the last lines of its output when it stopped (to explain a failed start)
 */
public record SandboxState(Phase phase, Integer exitCode, String logTail) {

    public enum Phase { CREATED, RUNNING, PAUSED, EXITED, MISSING }

    public static SandboxState missing() {
        return new SandboxState(Phase.MISSING, null, "");
    }

    public boolean isGone() {
        return phase == Phase.EXITED || phase == Phase.MISSING;
    }
}
