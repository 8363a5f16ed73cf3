package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * envd's {@code process.Process} service: the table of processes started through it, by pid.
 * Processes outlive the requests that started them; an exited one is kept for a minute (so that a
 * Connect after the end still gets {@code start} and {@code end}) and then forgotten, and the
 * table holds at most {@link #MAX_PROCESSES}. All run as the executor's user, with envd's
 * environment: PATH, HOME, USER and LOGNAME, then the runtime's configured variables (what
 * {@code POST /configure} set: E2B's sandbox {@code envVars}), then the call's {@code envs}.
 */
final class EnvdProcesses implements AutoCloseable {

    static final Duration KEEP_EXITED = Duration.ofMinutes(1);
    static final int MAX_PROCESSES = 1024;
    private static final String[] SIGNALS = {"SIGNAL_UNSPECIFIED", "SIGNAL_SIGTERM", "SIGNAL_SIGKILL"};
    private static final int[] SIGNAL_NUMBERS = {0, RunningProcess.SIGTERM, RunningProcess.SIGKILL};

    private final Map<Long, RunningProcess> processes = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "envd-process-timers");
        thread.setDaemon(true);
        return thread;
    });
    private final String path;
    private final EnvdUsers users;
    private final Supplier<Map<String, String>> configured;

    /**
     * @param path the PATH processes get (the executor's)
     * @param configured the runtime's configured variables, read at each start
     */
    EnvdProcesses(String path, EnvdUsers users, Supplier<Map<String, String>> configured) {
        this.path = path;
        this.users = users;
        this.configured = configured;
    }

    /**
     * {@code Start}: the process spawned with {@code client} attached, killed after {@code timeout}
     * (null: never). Errors (user, cwd, spawn) are thrown before anything is sent, so the client
     * gets them instead of {@code start}.
     */
    void start(EnvdUsers.User user, JsonObject request, EventStream client, Duration timeout) {
        JsonObject config = ConnectWire.object(request, "process", null);
        if (config == null || ConnectWire.string(config, "cmd") == null || ConnectWire.string(config, "cmd").isEmpty()) {
            throw ConnectError.invalidArgument("process.cmd is required");
        }
        String cwdGiven = ConnectWire.string(config, "cwd");
        Path cwd = EnvdUsers.resolve(user, cwdGiven);
        if (!Files.isDirectory(cwd)) {
            throw ConnectError.invalidArgument("cwd '" + cwd + "' does not exist");
        }
        Map<String, String> envs = ConnectWire.stringMap(config, "envs");
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("PATH", path);
        environment.put("HOME", user.home().toString());
        environment.put("USER", users.systemName());
        environment.put("LOGNAME", users.systemName());
        environment.putAll(configured.get());
        environment.putAll(envs);
        JsonObject pty = ConnectWire.object(request, "pty", null);
        RunningProcess.Spec spec = new RunningProcess.Spec(ConnectWire.string(config, "cmd"),
                ConnectWire.strings(config, "args"), envs, cwd, ConnectWire.string(request, "tag"),
                ConnectWire.flag(request, "stdin", null), pty == null ? null : size(pty), environment);
        forgetExited();
        if (processes.size() >= MAX_PROCESSES) {
            // full: the exited ones go first, however recent
            processes.values().removeIf(RunningProcess::ended);
        }
        if (processes.size() >= MAX_PROCESSES) {
            throw new ConnectError("resource_exhausted", "too many processes (" + MAX_PROCESSES + ")");
        }
        requireExecutable(spec.cmd(), cwd);
        ScheduledFuture<?>[] kill = new ScheduledFuture<?>[1];
        RunningProcess running;
        try {
            running = RunningProcess.spawn(spec, client, () -> {
                if (kill[0] != null) {
                    kill[0].cancel(false);
                }
            });
        } catch (IOException e) {
            throw ConnectError.internal("error starting process: " + e.getMessage());
        }
        processes.put(running.pid(), running);
        if (timeout != null) {
            kill[0] = timers.schedule(() -> running.signal(RunningProcess.SIGKILL), timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Go's exec.LookPath: a name without a slash is looked up in PATH, so "not found" comes before start. */
    private void requireExecutable(String cmd, Path cwd) {
        if (cmd.contains("/")) {
            if (!Files.isExecutable(cwd.resolve(cmd))) {
                throw ConnectError.internal("error starting process: fork/exec " + cmd + ": no such file or directory");
            }
            return;
        }
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, cmd)) && !Files.isDirectory(Path.of(dir, cmd))) {
                return;
            }
        }
        throw ConnectError.internal("error starting process: exec: \"" + cmd + "\": executable file not found in $PATH");
    }

    private static RunningProcess.Pty size(JsonObject pty) {
        JsonObject size = ConnectWire.object(pty, "size", null);
        if (size == null) {
            return new RunningProcess.Pty(80, 24);
        }
        long cols = ConnectWire.integer(size, "cols", null);
        long rows = ConnectWire.integer(size, "rows", null);
        if (cols <= 0 || rows <= 0 || cols > 65535 || rows > 65535) {
            throw ConnectError.invalidArgument("pty size must be between 1 and 65535");
        }
        return new RunningProcess.Pty((int) cols, (int) rows);
    }

    /** {@code Connect}: attaches {@code client} to the selected process. */
    void connect(JsonObject request, EventStream client) {
        find(request, true).attach(client);
    }

    /** {@code List}: the processes still running. */
    JsonObject list() {
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        processes.values().stream().filter(p -> !p.ended()).forEach(p -> list.add(p.info()));
        return Jsonp.createObjectBuilder().add("processes", list).build();
    }

    /** {@code SendInput}: {@code input.stdin} or {@code input.pty} bytes. */
    JsonObject sendInput(JsonObject request) {
        RunningProcess process = find(request, false);
        JsonObject input = ConnectWire.object(request, "input", null);
        byte[] data = input == null ? null : ConnectWire.bytes(input, "stdin");
        if (data == null && input != null) {
            data = ConnectWire.bytes(input, "pty");
        }
        if (data == null) {
            throw ConnectError.invalidArgument("input.stdin or input.pty is required");
        }
        process.input(data);
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    JsonObject closeStdin(JsonObject request) {
        find(request, false).closeStdin();
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    JsonObject sendSignal(JsonObject request) {
        RunningProcess process = find(request, false);
        int signal = ConnectWire.enumValue(request, "signal", SIGNALS, SIGNAL_NUMBERS);
        if (signal != RunningProcess.SIGKILL && signal != RunningProcess.SIGTERM) {
            throw ConnectError.invalidArgument("signal must be SIGNAL_SIGKILL or SIGNAL_SIGTERM");
        }
        process.signal(signal);
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    /** {@code Update}: a terminal's new size. */
    JsonObject update(JsonObject request) {
        RunningProcess process = find(request, false);
        JsonObject pty = ConnectWire.object(request, "pty", null);
        if (pty != null) {
            process.resize(size(pty));
        }
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    /**
     * The process of {@code request.process} ({@code pid} or {@code tag}): a running one, or for
     * Connect's replay ({@code ended}) one that exited lately.
     */
    private RunningProcess find(JsonObject request, boolean ended) {
        JsonObject selector = ConnectWire.object(request, "process", null);
        if (selector == null) {
            throw ConnectError.invalidArgument("process (pid or tag) is required");
        }
        String tag = ConnectWire.string(selector, "tag");
        long pid = tag != null ? -1 : ConnectWire.integer(selector, "pid", null);
        return processes.values().stream()
                .filter(p -> tag != null ? tag.equals(p.tag()) : p.pid() == pid)
                .filter(p -> ended || !p.ended())
                .min((a, b) -> Boolean.compare(a.ended(), b.ended()))
                .orElseThrow(() -> ConnectError.notFound(tag != null ? "process with tag " + tag + " not found"
                        : "process with pid " + pid + " not found"));
    }

    /** Forgets processes that exited over {@link #KEEP_EXITED} ago. */
    private void forgetExited() {
        long now = System.nanoTime();
        processes.values().removeIf(p -> p.ended() && now - p.endedAtNanos() > KEEP_EXITED.toNanos());
    }

    /** The executor is stopping: its processes end with it. */
    @Override
    public void close() {
        timers.shutdownNow();
        List.copyOf(processes.values()).forEach(p -> p.signal(RunningProcess.SIGKILL));
    }
}
