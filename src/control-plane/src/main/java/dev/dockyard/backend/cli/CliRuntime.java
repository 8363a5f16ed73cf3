package dev.dockyard.backend.cli;

import dev.dockyard.backend.SandboxState;
import dev.dockyard.executor.ActionExecutor;
import dev.dockyard.executor.ExecutorRequests;
import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.executor.files.PathGuard;
import dev.dockyard.executor.http.ProtocolHttpServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One live cli runtime: its directory, its executor (the persistent shell) and the loopback
 * server in front of it. Created, started, paused, stopped and started again by
 * {@link CliBackend}, one call at a time (the backend holds this object's lock).
 */
final class CliRuntime implements ExecutorRequests.Host {

    private static final Logger LOG = Logger.getLogger(CliRuntime.class.getName());
    /** Rounds of stopping what still runs after a freeze's first pass. */
    private static final int STOP_ROUNDS = 20;
    /** What a shell finds when it starts: the host's PATH and locale, never the control plane's variables. */
    private static final List<String> INHERITED = List.of("PATH", "LANG", "LC_ALL", "TZ");

    private final RuntimeDirectory directory;
    private final ExecutorRequests requests = new ExecutorRequests(this);
    private volatile byte[] sessionKey;
    private volatile ActionExecutor executor;
    private volatile String failure;
    private ProtocolHttpServer server;
    /** The port the control plane knows the executor by (a sandbox's container port): the one port served. */
    private volatile int executorPort;
    /** The terminal holder did not stop itself when frozen: it was stopped here (see {@link #signal}). */
    private boolean holderStoppedHere;
    private SandboxState.Phase phase = SandboxState.Phase.CREATED;

    CliRuntime(RuntimeDirectory directory, String sessionKey) {
        this.directory = directory;
        this.sessionKey = sessionKey == null ? null : sessionKey.getBytes(StandardCharsets.UTF_8);
    }

    RuntimeDirectory directory() {
        return directory;
    }

    SandboxState.Phase phase() {
        return phase;
    }

    /**
     * Starts the shell in the workspace and the server in front of it; returns the server's URI.
     * A {@code sessionKey} given replaces the one held (a runtime started again after a restart).
     */
    URI start(String newSessionKey, int port, Executor threads) throws IOException {
        executorPort = port;
        if (newSessionKey != null) {
            sessionKey = newSessionKey.getBytes(StandardCharsets.UTF_8);
        }
        if (phase == SandboxState.Phase.RUNNING || phase == SandboxState.Phase.PAUSED) {
            return server.uri();
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put(ExecutorSettings.SESSION_KEY_ENV, new String(sessionKey, StandardCharsets.UTF_8));
        env.put("DOCKYARD_WORKSPACE", directory.workspace().toRealPath().toString());
        env.put("DOCKYARD_PLUGINS", "");
        ExecutorSettings settings = ExecutorSettings.fromEnvironment(env);
        failure = null;
        try {
            executor = new ActionExecutor(settings, shellEnvironment(), directory.run(),
                    PathGuard.onHost(settings.workspace()));
        } catch (IOException | RuntimeException e) {
            failure = e.getMessage();
            throw e;
        }
        server = ProtocolHttpServer.open(requests, threads);
        phase = SandboxState.Phase.RUNNING;
        return server.uri();
    }

    /** The shell's environment: a clean one, with the runtime's own HOME and user. */
    private Map<String, String> shellEnvironment() throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : INHERITED) {
            String value = System.getenv(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        env.putIfAbsent("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env.putIfAbsent("LANG", "C.UTF-8");
        env.put("HOME", directory.home().toRealPath().toString());
        env.put("USER", System.getProperty("user.name"));
        env.put("LOGNAME", System.getProperty("user.name"));
        env.put("SHELL", "/bin/bash");
        return env;
    }

    private static int depthUnder(ProcessHandle top, ProcessHandle process) {
        int depth = 0;
        for (ProcessHandle p = process; p != null && !p.equals(top) && depth < 1000;
             p = p.parent().orElse(null)) {
            depth++;
        }
        return depth;
    }

    /** Where the executor answers, if {@code port} is its port and it runs; else null. */
    URI uri(int port) {
        return server == null || port != executorPort ? null : server.uri();
    }

    /**
     * SIGSTOP (or SIGCONT) to the shell and everything under it, parents stopped before their
     * children and continued after them (a parent running while its child stops would see it:
     * bash would report a stopped job).
     *
     * <p>The terminal's holder, {@code script}, passes a stop on: told its child stopped, it stops
     * itself, and sends the child SIGCONT once continued. So it is left to stop itself when
     * freezing (stopped by us only if it has not within a second), and continued last when
     * thawing, again if it stopped itself late.
     */
    void signal(boolean freeze) {
        ActionExecutor running = executor;
        if (running == null) {
            return;
        }
        ProcessHandle holder = running.shellProcess();
        Map<ProcessHandle, Integer> depth = new LinkedHashMap<>();
        holder.descendants().forEach(p -> depth.put(p, depthUnder(holder, p)));
        List<ProcessHandle> order = depth.entrySet().stream()
                .sorted(freeze ? Map.Entry.comparingByValue() : Map.Entry.<ProcessHandle, Integer>comparingByValue()
                        .reversed())
                .map(Map.Entry::getKey).toList();
        if (freeze) {
            kill("-STOP", order);
            stopStragglers(holder);
            holderStoppedHere = !await(holder, true, Duration.ofSeconds(1));
            if (holderStoppedHere) {
                kill("-STOP", List.of(holder));
            }
            phase = SandboxState.Phase.PAUSED;
            return;
        }
        kill("-CONT", order);
        kill("-CONT", List.of(holder));
        if (holderStoppedHere && await(holder, true, Duration.ofMillis(300))) {
            // stopped before it saw its child stop, it sees that now and stops itself, once
            kill("-CONT", List.of(holder));
        }
        phase = SandboxState.Phase.RUNNING;
    }

    /**
     * Stops what the first pass left running: a process forked between the list and its parent's
     * stop is on no list, and a job was seen still running after the pass in a CI run. Bounded: a
     * few rounds, each over what runs under the holder then (a second SIGSTOP does no harm).
     */
    private static void stopStragglers(ProcessHandle holder) {
        for (int round = 0; round < STOP_ROUNDS; round++) {
            // parents before their children, as in the first pass
            List<ProcessHandle> running = holder.descendants().filter(p -> {
                char state = state(p);
                return state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != '?';
            }).sorted(Comparator.comparingInt(p -> depthUnder(holder, p))).toList();
            if (running.isEmpty()) {
                return;
            }
            kill("-STOP", running);
            if (!pause(5)) {
                return;
            }
        }
    }

    private static void kill(String signal, List<ProcessHandle> processes) {
        List<String> command = new ArrayList<>(List.of("kill", signal));
        processes.stream().filter(ProcessHandle::isAlive).forEach(p -> command.add(String.valueOf(p.pid())));
        if (command.size() == 2) {
            return;
        }
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            kill.waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("could not signal the runtime's processes: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling the runtime's processes", e);
        }
    }

    /** Waits (bounded) until the process is stopped; false when it is not within {@code limit}. */
    private static boolean await(ProcessHandle process, boolean stopped, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (isStopped(process) == stopped) {
                return true;
            }
            if (!pause(5)) {
                return false;
            }
        }
        return isStopped(process) == stopped;
    }

    private static boolean isStopped(ProcessHandle process) {
        return state(process) == 'T';
    }

    /** Alive and not a zombie (one nobody has reaped yet runs nothing). */
    private static boolean running(ProcessHandle process) {
        return process.isAlive() && state(process) != 'Z';
    }

    /** The state letter of /proc/<pid>/stat (T: stopped by a signal, Z: a zombie), or '?' when gone. */
    private static char state(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        } catch (IOException e) {
            return '?';
        }
    }

    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Ends the shell and everything it started (thawed first), and the server; the directory stays. */
    void stop() {
        if (phase == SandboxState.Phase.PAUSED) {
            signal(false);
        }
        if (server != null) {
            server.close();
            server = null;
        }
        ActionExecutor running = executor;
        executor = null;
        if (running != null) {
            List<ProcessHandle> started = new ArrayList<>(running.shellProcess().descendants().toList());
            started.add(running.shellProcess());
            try {
                running.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "closing a cli runtime's executor", e);
            }
            // killed is not yet gone: the directory is removed once nothing of the runtime runs there
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (started.stream().anyMatch(CliRuntime::running) && System.nanoTime() < deadline) {
                pause(10);
            }
        }
        if (phase != SandboxState.Phase.CREATED) {
            phase = SandboxState.Phase.EXITED;
        }
    }

    @Override
    public ActionExecutor executor() {
        return executor;
    }

    @Override
    public String failure() {
        return failure;
    }

    @Override
    public byte[] sessionKey() {
        return sessionKey;
    }
}
