package dev.dockyard.application.runtimes;

import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ExecutorProcesses;
import dev.dockyard.runtime.lifecycle.Activity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Function;

/**
 * The processes of a READY sandbox beside its persistent shell: many at once, each with a pid, its
 * own stdout and stderr, stdin, signals and an optional terminal, streamed as they run. The
 * sandbox's executor keeps them (envd's process service, which E2B's SDKs use too); a process
 * outlives the client that started it, which may attach again by pid. Calls are admitted like
 * actions ({@link ReadyRuntimes}: a sleeping runtime is woken, a migrating one refused), and every
 * event of a stream counts as activity, so the idle lifecycle never pauses a runtime mid-stream.
 */
@ApplicationScoped
public class SandboxProcesses {

    @Inject
    ReadyRuntimes ready;

    @Inject
    ExecutorProcesses executors;

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    @Inject
    ActionService actions;

    @Inject
    Activity activity;

    /** A process's events as they come, the first already read (so a refusal is known before an answer starts). */
    public static final class Events implements AutoCloseable {

        private final ExecutorProcesses.Stream stream;
        private final Runnable touch;
        private ProcessEvent pending;
        private boolean ended;

        Events(ExecutorProcesses.Stream stream, ProcessEvent first, Runnable touch) {
            this.stream = stream;
            this.pending = first;
            this.touch = touch;
        }

        /** The next event, or empty once the stream's last event ({@code end} or {@code error}) was given. */
        public Optional<ProcessEvent> next() {
            if (pending != null) {
                ProcessEvent event = pending;
                pending = null;
                ended = event.last();
                return Optional.of(event);
            }
            if (ended) {
                return Optional.empty();
            }
            ProcessEvent event = read(stream);
            ended = event.last();
            touch.run();
            return Optional.of(event);
        }

        @Override
        public void close() {
            stream.close();
        }
    }

    /**
     * Starts a process for {@code userId} and gives its events from {@code start} on: rated, held or
     * blocked by the agent's security policy and audited as the shell's commands are
     * ({@link ActionService#admitCommand}); the refusals of envd before its start are thrown.
     */
    public Events start(String userId, SandboxRuntime runtime, ProcessRequest request) {
        actions.admitCommand(userId, runtime, request.commandLine(), request.confirmed());
        return open(runtime, "Start", request.toEnvd(), request.timeout());
    }

    /** Attaches to a running process: {@code start}, then only what it does from now on. */
    public Events attach(SandboxRuntime runtime, long pid) {
        return open(runtime, "Connect", selector(pid).build(), null);
    }

    /** The live processes: pid, tag, command, arguments and working directory (never their environment). */
    public JsonArray list(SandboxRuntime runtime) {
        JsonObject answer = call(runtime, "List", Jsonp.createObjectBuilder().build());
        var out = Jsonp.createArrayBuilder();
        JsonArray processes = answer.getJsonArray("processes");
        if (processes != null) {
            for (JsonObject p : processes.getValuesAs(JsonObject.class)) {
                JsonObject config = p.getJsonObject("config");
                JsonObjectBuilder view = Jsonp.createObjectBuilder().add("pid", p.getJsonNumber("pid").longValue());
                if (p.containsKey("tag")) {
                    view.add("tag", p.getString("tag"));
                }
                if (config != null) {
                    view.add("cmd", config.getString("cmd", ""))
                            .add("args", config.getJsonArray("args") == null ? Jsonp.createArrayBuilder().build()
                                    : config.getJsonArray("args"));
                    if (config.containsKey("cwd")) {
                        view.add("cwd", config.getString("cwd"));
                    }
                }
                out.add(view);
            }
        }
        return out.build();
    }

    /** Writes to a process's stdin (or its terminal, for a process started with one). */
    public void input(SandboxRuntime runtime, long pid, byte[] data, boolean terminal) {
        call(runtime, "SendInput", selector(pid).add("input", Jsonp.createObjectBuilder()
                .add(terminal ? "pty" : "stdin", Base64.getEncoder().encodeToString(data))).build());
    }

    /** Closes a process's stdin: it reads an end of input. */
    public void closeInput(SandboxRuntime runtime, long pid) {
        call(runtime, "CloseStdin", selector(pid).build());
    }

    /** Sends SIGTERM or SIGKILL to the process and its group. */
    public void signal(SandboxRuntime runtime, long pid, String signal) {
        if (!signal.equals("SIGTERM") && !signal.equals("SIGKILL")) {
            throw new Refused(Refused.Reason.VALIDATION, "signal must be SIGTERM or SIGKILL");
        }
        call(runtime, "SendSignal", selector(pid).add("signal", "SIGNAL_" + signal).build());
    }

    /** Resizes the terminal of a process started with one. */
    public void resize(SandboxRuntime runtime, long pid, int cols, int rows) {
        call(runtime, "Update", selector(pid).add("pty", Jsonp.createObjectBuilder().add("size",
                Jsonp.createObjectBuilder().add("cols", cols).add("rows", rows))).build());
    }

    private Events open(SandboxRuntime runtime, String method, JsonObject request, Duration deadline) {
        ExecutorProcesses.Stream stream = at(runtime, (awake, executor) ->
                executors.open(executor, awake.sessionKey(), method, request, deadline));
        ProcessEvent first;
        try {
            first = read(stream);
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        if (first.name().equals("error")) {
            stream.close();
            throw refused(first.data().getString("code", "unknown"), first.data().getString("message", ""));
        }
        return new Events(stream, first, () -> activity.touch(runtime.id()));
    }

    private JsonObject call(SandboxRuntime runtime, String method, JsonObject request) {
        return at(runtime, (awake, executor) -> executors.call(executor, awake.sessionKey(), method, request));
    }

    /** Runs {@code work} against the admitted runtime's executor, mapping envd's refusals to Dockyard's. */
    private <T> T at(SandboxRuntime runtime, ExecutorWork<T> work) {
        try (ReadyRuntimes.Admitted admitted = ready.admit(runtime)) {
            admitted.awaken();
            SandboxRuntime awake = admitted.runtime();
            return work.apply(awake, URI.create(awake.executorUrl()));
        } catch (ExecutorProcesses.CallFailedException e) {
            throw refused(e.code(), e.getMessage());
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw outages.refusal(runtime, e);
        }
    }

    @FunctionalInterface
    private interface ExecutorWork<T> {
        T apply(SandboxRuntime awake, URI executor);
    }

    private static ProcessEvent read(ExecutorProcesses.Stream stream) {
        try {
            return stream.next().map(ProcessEvent::of).orElse(ProcessEvent.CUT_SHORT);
        } catch (IOException e) {
            return ProcessEvent.CUT_SHORT;
        }
    }

    /** envd's Connect error as Dockyard's refusal. */
    static Refused refused(String code, String message) {
        Function<Refused.Reason, Refused> of = reason -> new Refused(reason, message);
        return switch (code) {
            case "not_found" -> of.apply(Refused.Reason.NOT_FOUND);
            case "invalid_argument", "failed_precondition", "out_of_range" -> of.apply(Refused.Reason.VALIDATION);
            case "resource_exhausted" -> of.apply(Refused.Reason.QUOTA_EXCEEDED);
            case "already_exists", "aborted" -> of.apply(Refused.Reason.CONFLICT);
            default -> new Refused(Refused.Reason.EXECUTOR_FAILED, "The executor refused (" + code + "): " + message);
        };
    }

    private static JsonObjectBuilder selector(long pid) {
        return Jsonp.createObjectBuilder().add("process", Jsonp.createObjectBuilder().add("pid", pid));
    }
}
