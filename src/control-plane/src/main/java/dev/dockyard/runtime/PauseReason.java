package dev.dockyard.runtime;

/**
 * Why a runtime is PAUSED or HIBERNATED, which decides whether the next action wakes it: the idle
 * lifecycle's own sleep is transparent (the next action wakes it), the user's explicit pause is
 * not (actions are refused until {@code POST /resume}, as before idle pauses existed).
 */
public enum PauseReason {
    /** {@code POST /pause} (or a row from before reasons were kept). */
    REQUEST,
    /** Nobody touched it for its idle timeout. */
    IDLE,
    /** Its end time passed and it pauses then ({@link EndAction#PAUSE}): like the user's pause, until resumed. */
    END;

    /** Whether an action wakes a runtime sleeping for this reason. */
    public boolean wokenByAction() {
        return this == IDLE;
    }
}
