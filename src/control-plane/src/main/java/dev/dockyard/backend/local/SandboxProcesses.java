package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The running processes of a node's local sandboxes, found and signalled: which processes are a
 * sandbox's ({@link #members}), freezing and thawing them, ending them (SIGTERM, then SIGKILL
 * after the node's stop grace), and whether what listens on a sandbox's port is its own. A
 * sandbox's processes are found from its record and the host's {@code /proc} each time; what is
 * kept in memory is only what a pause stopped and the listeners already seen, both forgotten with
 * the sandbox ({@link #forget}).
 */
final class SandboxProcesses {

    private static final Logger LOG = Logger.getLogger(SandboxProcesses.class.getName());

    private final SandboxUser user;
    private final ProcessTable processes;
    private final CgroupLimits cgroups;
    private final Duration stopGrace;
    /** The processes each pause stopped (the others were stopped before it), by sandbox. */
    private final Map<String, List<Long>> stoppedByPause = new ConcurrentHashMap<>();
    /** The sockets seen to be each running sandbox's own, with the process they descend from. */
    private final Map<String, Listener> listeners = new ConcurrentHashMap<>();

    SandboxProcesses(SandboxUser user, ProcessTable processes, CgroupLimits cgroups, Duration stopGrace) {
        this.user = user;
        this.processes = processes;
        this.cgroups = cgroups;
        this.stopGrace = stopGrace;
    }

    /** Whether the recorded executor still runs: the same pid, and the same process (its start time). */
    boolean alive(ProcessIdentity process) {
        return processes.alive(process);
    }

    /**
     * Every live process of the sandbox: its executor when the recorded pid is still that process,
     * with every process descending from it now (its variable dropped or not), those carrying its
     * variable (of its user) wherever they were reparented, and those in its cgroup. A recorded pid
     * now held by another process is never among them. What dropped the variable and left the
     * tree (a double fork) is found only by the cgroup, or by the pid namespace's end (docs/backends.md,
     * "Local backend").
     */
    List<Long> members(SandboxRecord record) {
        Set<Long> pids = new LinkedHashSet<>();
        if (record.process() != null && processes.alive(record.process())) {
            pids.addAll(processes.descendants(record.process().pid()));
        }
        pids.addAll(processes.carrying(LocalBackend.SANDBOX_VARIABLE, record.name(), user.uid()));
        pids.addAll(cgroups.members(record.name()));
        pids.remove(ProcessHandle.current().pid());
        return List.copyOf(pids);
    }

    /**
     * SIGSTOP to every process of the sandbox that runs; what the agent stopped itself (a job it
     * suspended) stays stopped after the resume, so only what the first pause stopped is kept.
     */
    void freeze(String name, SandboxRecord record) {
        List<Long> running = members(record).stream()
                .filter(p -> !processes.stat(p).map(ProcStat::stopped).orElse(true)).toList();
        if (!record.frozen()) {
            stoppedByPause.put(name, running);
        }
        processes.signal("STOP", running);
    }

    /**
     * SIGCONT to every process of the sandbox until none is stopped: script(1), which holds the
     * executor's shell on its terminal, stops itself when it learns its child was stopped, and may
     * learn it only after the first SIGCONT; a stopped script would leave the shell's output unread.
     */
    void thaw(SandboxRecord record) {
        // after a restart of the control plane, what the pause stopped is not known: all of it
        List<Long> stopped = stoppedByPause.remove(record.name());
        Set<Long> targets = new LinkedHashSet<>(stopped != null ? stopped : members(record));
        List<Long> pids = List.copyOf(targets);
        for (int round = 0; round < 20 && !pids.isEmpty(); round++) {
            processes.signal("CONT", pids);
            sleep(round == 0 ? 20 : 50);
            pids = members(record).stream().filter(targets::contains)
                    .filter(p -> processes.stat(p).map(ProcStat::stopped).orElse(false)).toList();
        }
        if (!pids.isEmpty()) {
            LOG.warning("Processes " + pids + " of local sandbox '" + record.name() + "' stay stopped after SIGCONT");
        }
    }

    /** SIGTERM to every process of the sandbox (thawed), then SIGKILL to what is left after the grace. */
    void terminate(SandboxRecord record) {
        List<Long> pids = members(record);
        if (pids.isEmpty()) {
            return;
        }
        processes.signal("TERM", pids);
        processes.signal("CONT", pids);
        long deadline = System.nanoTime() + stopGrace.toNanos();
        while (!pids.isEmpty() && System.nanoTime() < deadline) {
            sleep(100);
            pids = members(record);
        }
        for (int round = 0; round < 50 && !pids.isEmpty(); round++) {
            processes.signal("KILL", pids);
            sleep(100);
            pids = members(record);
        }
        if (!pids.isEmpty()) {
            throw new BackendException("processes " + pids + " of local sandbox '" + record.name() + "' survived SIGKILL");
        }
    }

    /**
     * The port was free when the sandbox started, but any process of the host could bind it
     * before the executor did (or after it exited): every socket a connection to 127.0.0.1 there
     * may reach must be held by the sandbox's first process or one of its descendants (its pid
     * namespace, the executor, what its shell starts), never by a process that merely carries the
     * sandbox's variable. Once seen, the answer holds while those sockets and that process live.
     */
    boolean listensAt(String name, SandboxRecord record, URI endpoint) {
        if (record.process() == null || record.port() == 0 || endpoint.getPort() != record.port()
                || !"127.0.0.1".equals(endpoint.getHost()) || !processes.alive(record.process())) {
            return false;
        }
        Set<Long> sockets = processes.listeners(record.port());
        if (sockets.isEmpty()) {
            return false;
        }
        if (new Listener(record.process(), sockets).equals(listeners.get(name))) {
            return true;
        }
        Set<Long> held = new HashSet<>();
        processes.descendants(record.process().pid()).forEach(pid -> held.addAll(processes.sockets(pid)));
        if (!held.containsAll(sockets)) {
            listeners.remove(name);
            throw new BackendException("another process than the executor of local sandbox '" + name
                    + "' listens on 127.0.0.1:" + record.port() + "; its session key is not sent there");
        }
        listeners.put(name, new Listener(record.process(), sockets));
        return true;
    }

    /** Forgets what is kept in memory of a removed sandbox. */
    void forget(String name) {
        stoppedByPause.remove(name);
        listeners.remove(name);
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted", e);
        }
    }

    private record Listener(ProcessIdentity executor, Set<Long> sockets) {
    }
}
