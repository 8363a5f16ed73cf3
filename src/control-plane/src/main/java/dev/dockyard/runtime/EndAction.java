package dev.dockyard.runtime;

/**
 * What becomes of a runtime when its end time passes (see {@link SandboxRuntime#endsAt()}): E2B's
 * {@code lifecycle.onTimeout}, {@code kill} or {@code pause}.
 */
public enum EndAction {
    /** Stopped and its sandbox removed, like a reached TTL. */
    STOP,
    /** Paused (its sandbox frozen, {@link PauseReason#END}), kept until it is resumed or deleted. */
    PAUSE
}
