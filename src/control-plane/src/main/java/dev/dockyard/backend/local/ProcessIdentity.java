package dev.dockyard.backend.local;

/**
 * A process as the kernel tells it apart for good: its pid and its start time ({@link ProcStat#startTime()}).
 * Pids are reused; a pid with another start time is another process, which this backend never signals.
 */
public record ProcessIdentity(long pid, long startTime) {

    /** Whether {@code now} (what /proc says of the pid now) is this process, still alive. */
    public boolean aliveAs(ProcStat now) {
        return now != null && now.startTime() == startTime && !now.exited();
    }
}
