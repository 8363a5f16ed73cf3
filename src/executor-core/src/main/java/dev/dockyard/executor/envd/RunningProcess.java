package dev.dockyard.executor.envd;

import dev.dockyard.executor.bash.BashSession;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One process started by envd's {@code Start}: its output read in chunks of up to 32 KiB and
 * handed to whichever clients are attached at the time (none: dropped, as envd does), and its end
 * ({@code exitCode}, {@code exited}, {@code status}, {@code error}, as Go's ProcessState says them)
 * once its output has closed and it has been reaped. A client going away never ends it.
 *
 * <p>Without a terminal it runs under {@code setsid}, so it leads a process group of its own
 * that a signal reaches whole; stdout and stderr are separate pipes and stdin is
 * {@code /dev/null} unless asked for. With a terminal ({@code pty}) it runs under {@code
 * script(1)}, as the executor's persistent shell does, since Java has no pseudo-terminal API:
 * script gives it a terminal (the size set with {@code stty} before the command is exec'd), what
 * is written to script's stdin is typed on it, and a resize runs {@code stty} on the terminal's
 * device, which the kernel answers with SIGWINCH to the foreground job.
 */
final class RunningProcess {

    private static final Logger LOG = Logger.getLogger(RunningProcess.class.getName());
    private static final int CHUNK = 32 * 1024;
    static final int SIGKILL = 9;
    static final int SIGTERM = 15;

    /** A terminal's size. */
    record Pty(int cols, int rows) {
    }

    /**
     * What Start asked for: {@code envs} as given (List shows them), {@code environment} the
     * process's whole environment, {@code cwd} resolved.
     */
    record Spec(String cmd, List<String> args, Map<String, String> envs, Path cwd, String tag, boolean stdin,
                Pty pty, Map<String, String> environment) {
    }

    private final Spec spec;
    private final Process process;
    private final List<EventStream> clients = new CopyOnWriteArrayList<>();
    private final Object inputLock = new Object();
    private boolean stdinOpen;
    private volatile int signalled;
    private volatile JsonObject end;
    private volatile long endedAtNanos;

    private RunningProcess(Spec spec, Process process) {
        this.spec = spec;
        this.process = process;
        this.stdinOpen = spec.stdin() || spec.pty() != null;
    }

    /**
     * Starts the process with {@code first} attached (it gets {@code start} before any output);
     * {@code onEnd} runs once the end has been sent.
     */
    static RunningProcess spawn(Spec spec, EventStream first, Runnable onEnd) throws IOException {
        ProcessBuilder builder = spec.pty() == null ? pipes(spec) : terminal(spec);
        builder.directory(spec.cwd().toFile());
        builder.environment().clear();
        builder.environment().putAll(spec.environment());
        RunningProcess running = new RunningProcess(spec, builder.start());
        running.attach(first);
        running.startReaders(onEnd);
        return running;
    }

    private static ProcessBuilder pipes(Spec spec) {
        // the JVM's child never leads a process group, so setsid(1) calls setsid() and execs the
        // command in the same process (no fork): the pid is the command's and leads its group
        List<String> command = new ArrayList<>(List.of("setsid", spec.cmd()));
        command.addAll(spec.args());
        ProcessBuilder builder = new ProcessBuilder(command);
        if (!spec.stdin()) {
            builder.redirectInput(new File("/dev/null"));
        }
        return builder;
    }

    private static ProcessBuilder terminal(Spec spec) {
        StringBuilder command = new StringBuilder("stty cols ").append(spec.pty().cols()).append(" rows ")
                .append(spec.pty().rows()).append(" 2>/dev/null; exec ").append(BashSession.shellQuote(spec.cmd()));
        spec.args().forEach(arg -> command.append(' ').append(BashSession.shellQuote(arg)));
        return new ProcessBuilder("script", "-qfec", command.toString(), "/dev/null").redirectErrorStream(true);
    }

    long pid() {
        return process.pid();
    }

    String tag() {
        return spec.tag();
    }

    /** Read without the lock: the table asks it while a slow client may hold {@link #finish} up. */
    boolean ended() {
        return end != null;
    }

    /** When it ended ({@link System#nanoTime()}), for forgetting it a while later. */
    long endedAtNanos() {
        return endedAtNanos;
    }

    /** Attaches a client: {@code start} at once, then new output and the end (replayed if it already ended). */
    synchronized void attach(EventStream client) {
        client.send(event("start", Jsonp.createObjectBuilder().add("pid", pid()).build()));
        if (end != null) {
            client.send(event("end", end));
            client.end(null);
        } else {
            clients.add(client);
        }
    }

    private void startReaders(Runnable onEnd) {
        List<Thread> readers = new ArrayList<>();
        readers.add(reader(process.getInputStream(), spec.pty() == null ? "stdout" : "pty"));
        if (spec.pty() == null) {
            readers.add(reader(process.getErrorStream(), "stderr"));
        }
        daemon("envd-wait-" + pid(), () -> {
            try {
                for (Thread reader : readers) {
                    reader.join();
                }
                finish(process.waitFor());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                onEnd.run();
            }
        });
    }

    private Thread reader(InputStream output, String kind) {
        return daemon("envd-" + kind + "-" + pid(), () -> {
            byte[] chunk = new byte[CHUNK];
            try (output) {
                int n;
                while ((n = output.read(chunk)) >= 0) {
                    if (n > 0 && !clients.isEmpty()) {
                        publish(event("data", Jsonp.createObjectBuilder()
                                .add(kind, Base64.getEncoder().encodeToString(Arrays.copyOf(chunk, n))).build()));
                    }
                }
            } catch (IOException e) {
                LOG.log(Level.FINE, "process output closed", e);
            }
        });
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void publish(JsonObject message) {
        for (EventStream client : clients) {
            if (client.closed()) {
                clients.remove(client);
            } else {
                client.send(message);
            }
        }
    }

    /**
     * The end as Go reports it: a signal we sent shows as 128+n from Java, and as Go's "signal: ..."
     * here. Recorded under the lock (attach sees either the clients or the end), sent after it, so a
     * client that cannot take it holds no one else up.
     */
    private void finish(int exit) {
        JsonObject ended;
        List<EventStream> attached;
        synchronized (this) {
            int signal = signalled;
            JsonObjectBuilder result = Jsonp.createObjectBuilder();
            if (signal != 0 && exit == 128 + signal) {
                String status = "signal: " + (signal == SIGKILL ? "killed" : "terminated");
                result.add("exitCode", -1).add("exited", false).add("status", status).add("error", status);
            } else {
                String status = "exit status " + exit;
                result.add("exitCode", exit).add("exited", true).add("status", status);
                if (exit != 0) {
                    result.add("error", status);
                }
            }
            endedAtNanos = System.nanoTime();
            ended = result.build();
            end = ended;
            attached = List.copyOf(clients);
            clients.clear();
        }
        for (EventStream client : attached) {
            client.send(event("end", ended));
            client.end(null);
        }
    }

    private static JsonObject event(String kind, JsonObject body) {
        return Jsonp.createObjectBuilder().add("event", Jsonp.createObjectBuilder().add(kind, body)).build();
    }

    /** Writes to stdin (or types on the terminal). */
    void input(byte[] data) {
        synchronized (inputLock) {
            if (!stdinOpen) {
                throw ConnectError.internal("stdin not enabled or closed");
            }
            try {
                OutputStream in = process.getOutputStream();
                in.write(data);
                in.flush();
            } catch (IOException e) {
                throw ConnectError.internal("error writing to stdin: " + e.getMessage());
            }
        }
    }

    /** Closes stdin; again, or on a terminal (where EOF is a typed Ctrl-D), does nothing. */
    void closeStdin() {
        synchronized (inputLock) {
            if (stdinOpen && spec.pty() == null) {
                stdinOpen = false;
                try {
                    process.getOutputStream().close();
                } catch (IOException e) {
                    LOG.log(Level.FINE, "stdin already closed", e);
                }
            }
        }
    }

    /**
     * Sends {@code signal} to the whole process: its group (and, on a terminal, the group of the
     * terminal's session), and every descendant still attached, so that no child outlives it.
     */
    void signal(int signal) {
        if (ended()) {
            return;
        }
        signalled = signal;
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "kill -s " + (signal == SIGKILL ? "KILL" : "TERM") + " -- \"$@\" 2>/dev/null", "kill"));
        command.add("-" + pid());
        process.children().forEach(child -> command.add("-" + child.pid()));
        process.descendants().forEach(descendant -> command.add(String.valueOf(descendant.pid())));
        command.add(String.valueOf(pid()));
        run(command);
    }

    /** Resizes the terminal: {@code stty} on its device, as a person's terminal emulator would. */
    void resize(Pty size) {
        if (spec.pty() == null) {
            throw ConnectError.invalidArgument("the process has no terminal to resize");
        }
        ProcessHandle child = process.children().findFirst()
                .orElseThrow(() -> new ConnectError("failed_precondition", "the terminal is not open"));
        Path tty;
        try {
            tty = Files.readSymbolicLink(Path.of("/proc", String.valueOf(child.pid()), "fd", "0"));
        } catch (IOException e) {
            throw new ConnectError("failed_precondition", "the terminal is not open");
        }
        if (run(List.of("stty", "-F", tty.toString(), "cols", String.valueOf(size.cols()), "rows",
                String.valueOf(size.rows()))) != 0) {
            throw ConnectError.internal("the terminal could not be resized");
        }
    }

    private static int run(List<String> command) {
        try {
            Process helper = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!helper.waitFor(5, TimeUnit.SECONDS)) {
                helper.destroyForcibly();
                return -1;
            }
            return helper.exitValue();
        } catch (IOException e) {
            LOG.log(Level.WARNING, command.get(0) + " could not run", e);
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** {@code ProcessInfo}: {@code config} always present (the SDK dereferences it). */
    JsonObject info() {
        JsonArrayBuilder args = Jsonp.createArrayBuilder();
        spec.args().forEach(args::add);
        JsonObjectBuilder envs = Jsonp.createObjectBuilder();
        spec.envs().forEach(envs::add);
        JsonObjectBuilder info = Jsonp.createObjectBuilder()
                .add("config", Jsonp.createObjectBuilder().add("cmd", spec.cmd()).add("args", args).add("envs", envs)
                        .add("cwd", spec.cwd().toString()))
                .add("pid", pid());
        if (spec.tag() != null) {
            info.add("tag", spec.tag());
        }
        return info.build();
    }
}
