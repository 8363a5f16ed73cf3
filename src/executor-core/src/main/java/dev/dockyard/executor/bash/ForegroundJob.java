package dev.dockyard.executor.bash;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which processes a control key is for when the terminal cannot say: the shell's foreground job.
 *
 * <p>On a kernel's terminal C-c, C-z and C-\ become signals for the terminal's foreground process
 * group. gVisor's terminal (runsc 2022-12-19) keeps that group but neither turns a key into a signal
 * nor shows the group in {@code /proc} (its {@code tpgid} is always 0), so the executor works it out
 * from what {@code /proc} does show. With job control on, the interactive shell gives every job a
 * process group of its own and makes it the terminal's foreground group while it waits for it; jobs
 * that were already there when the command was typed are background or stopped jobs of earlier
 * commands. So the foreground job is the newest running group among the shell's children that
 * started after the command was typed: in a later clock tick, or about the same hundredth of a second
 * with a higher process id than the last one handed out then; with none, the shell itself is in the
 * foreground (a builtin such as {@code read} or {@code wait}), as on a terminal. Those two numbers,
 * not a list of the jobs taken at every command, because reading every process's details under
 * gVisor's ptrace platform costs milliseconds a command, and the clock and one listing do not.
 *
 * <p>A command that may resume a stopped job ({@code fg}, {@code %1}) is the one case where the
 * shell's jobs are listed when it is typed: a job stopped then and running now is in the
 * foreground too.
 *
 * <p>Known differences from a terminal: a running background job brought to the foreground with
 * {@code fg} counts as background (the shell is signalled, and ignores C-z; {@code kill %1} ends
 * it), and a background job that this very command started after its foreground job counts as the
 * foreground.
 */
record ForegroundJob(long id, boolean group) {

    /**
     * @param shell the interactive shell
     * @param children the shell's child processes now
     * @param typed when the command was typed
     */
    static ForegroundJob of(ProcessStat shell, Collection<ProcessStat> children, Typed typed) {
        Optional<ProcessStat> newest = children.stream()
                .filter(child -> !child.stopped() && (typed.before(child) || typed.resumable().contains(child.group())))
                .max(Comparator.comparingLong(ProcessStat::startTicks).thenComparingLong(ProcessStat::pid));
        // with job control off (set +m) a job shares the shell's group: the whole group is the
        // terminal's foreground, the shell included, as on a terminal
        return newest.map(child -> new ForegroundJob(child.group(), true))
                .orElse(new ForegroundJob(shell.pid(), false));
    }

    /**
     * When a command was typed, as processes tell it.
     *
     * @param lastPid {@link ProcessStat#lastPid()} then (0: unknown)
     * @param ticks {@link ProcessStat#ticksNow()} then
     * @param resumable the groups of jobs stopped then, when the command may resume one (else empty)
     */
    record Typed(long lastPid, long ticks, Set<Long> resumable) {

        /** {@code fg}, or a job named by {@code %}, as a word of the command. */
        private static final Pattern RESUMES = Pattern.compile("(^|[\\s;&|(])(fg|%)");

        Typed {
            resumable = Set.copyOf(resumable);
        }

        /**
         * @param command what is being typed
         * @param jobs lists the shell's children; called only when the command may resume a job
         */
        static Typed now(String command, Supplier<List<ProcessStat>> jobs) {
            Set<Long> stopped = !RESUMES.matcher(command).find() ? Set.of() : jobs.get().stream()
                    .filter(ProcessStat::stopped).map(ProcessStat::group).collect(Collectors.toSet());
            return new Typed(ProcessStat.lastPid(), ProcessStat.ticksNow(), stopped);
        }

        /**
         * Whether the process started after this. The tick decides; near the typing's own tick the
         * id does (ids wrap around, so alone they could not), or, unknown, the process counts.
         * "Near" is that tick or the one before: a process's start tick is its start time cut to
         * the hundredth, but gVisor prints {@code /proc/uptime} rounded ({@code %.2f}), so the
         * reading taken at typing may already be the next hundredth while a job started after it
         * is still in the one before (seen in CI: a C-c sent to the shell instead of the job).
         */
        boolean before(ProcessStat process) {
            if (process.startTicks() > ticks || process.startTicks() < ticks - 1) {
                return process.startTicks() > ticks;
            }
            return lastPid <= 0 || process.pid() > lastPid;
        }
    }

    /** The argument {@code kill} takes for it: a negative number names a process group. */
    String killTarget() {
        return group ? "-" + id : String.valueOf(id);
    }
}
