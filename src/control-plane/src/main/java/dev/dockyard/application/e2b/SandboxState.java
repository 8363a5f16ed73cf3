package dev.dockyard.application.e2b;

import dev.dockyard.runtime.RuntimeStatus;
import java.util.Locale;
import java.util.Optional;

/**
 * E2B's two states of a sandbox, of a live runtime's status: a paused or hibernated runtime is
 * {@code paused} (connect resumes it), every other live one is {@code running} (one being brought up
 * or reconnected included: it is on its way, not gone). An ended runtime has no state: to E2B it
 * does not exist.
 */
public enum SandboxState {
    RUNNING, PAUSED;

    /** The word on the wire: {@code running}, {@code paused}. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The state of a runtime in {@code status}; empty for an ended one. */
    public static Optional<SandboxState> of(RuntimeStatus status) {
        if (!status.isLive()) {
            return Optional.empty();
        }
        return Optional.of(status == RuntimeStatus.PAUSED || status == RuntimeStatus.HIBERNATED ? PAUSED : RUNNING);
    }

    /** The state a wire word names; empty for any other word. */
    public static Optional<SandboxState> named(String word) {
        for (SandboxState state : values()) {
            if (state.apiName().equals(word)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
