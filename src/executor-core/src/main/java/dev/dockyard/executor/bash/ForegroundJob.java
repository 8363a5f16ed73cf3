package dev.dockyard.executor.bash;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;

/**
 * Which processes a control key is for when the terminal cannot say: the shell's foreground job.
 *
 * <p>On a kernel's terminal C-c, C-z and C-\ become signals for the terminal's foreground process
 * group. gVisor's terminal (runsc 2022-12-19) keeps that group but neither turns a key into a signal
 * nor shows the group in {@code /proc} (its {@code tpgid} is always 0), so the executor works it out
 * from what {@code /proc} does show. With job control on, the interactive shell gives every job a
 * process group of its own and makes it the terminal's foreground group while it waits for it; jobs
 * that ran when the command was typed are background jobs of earlier commands. So the foreground
 * job is the newest running group among the shell's children that was not running when the command
 * was typed (a stopped job resumed by {@code fg} counts); with none, the shell itself is in the
 * foreground (a builtin such as {@code read} or {@code wait}), as on a terminal.
 *
 * <p>Known difference from a terminal: a running background job brought to the foreground with
 * {@code fg} counts as background (the shell is signalled instead), and a background job that this
 * very command started after its foreground job counts as the foreground.
 */
record ForegroundJob(long id, boolean group) {

    /**
     * @param shell the interactive shell
     * @param children the shell's child processes now
     * @param groupsBefore the process groups of the shell's running children when the command was typed
     */
    static ForegroundJob of(ProcessStat shell, Collection<ProcessStat> children, Set<Long> groupsBefore) {
        Optional<ProcessStat> newest = children.stream()
                .filter(child -> !child.stopped() && !groupsBefore.contains(child.group()))
                .max(Comparator.comparingLong(ProcessStat::startTicks).thenComparingLong(ProcessStat::pid));
        // with job control off (set +m) a job shares the shell's group: the whole group is the
        // terminal's foreground, the shell included, as on a terminal
        return newest.map(child -> new ForegroundJob(child.group(), true))
                .orElse(new ForegroundJob(shell.pid(), false));
    }

    /** The argument {@code kill} takes for it: a negative number names a process group. */
    String killTarget() {
        return group ? "-" + id : String.valueOf(id);
    }
}
