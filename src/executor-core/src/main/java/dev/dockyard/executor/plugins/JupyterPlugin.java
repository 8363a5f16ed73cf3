package dev.dockyard.executor.plugins;

import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.IPythonRunCellAction;
import dev.dockyard.protocol.IPythonRunCellObservation;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.PythonNumbers;
import dev.dockyard.protocol.PythonStrings;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * {@code run_ipython} on one persistent IPython kernel. The kernel is driven by a small Python
 * process of its own ({@code ipython-bridge}, jupyter_client from Debian's python3-jupyter-client
 * and python3-ipykernel) that speaks one JSON line per request; it interrupts cells at their
 * timeout, restarts a kernel that dies or will not stop, and runs the kernel init code again
 * after every restart. The kernel's working directory follows the persistent shell's.
 */
public final class JupyterPlugin implements Plugin {

    public static final String NAME = "jupyter";
    /** What OpenHands answers for a cell that printed and displayed nothing. */
    static final String NO_OUTPUT = "[Code executed successfully with no output]";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** On top of a cell's own timeout: the bridge interrupts, then waits up to 5 s, then restarts. */
    private static final Duration GRACE = Duration.ofSeconds(60);

    private final List<String> command;
    private final Map<String, String> environment;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jupyter-bridge-reader");
        t.setDaemon(true);
        return t;
    });
    private final StringBuilder stderr = new StringBuilder();
    private Process bridge;
    private BufferedReader out;
    private OutputStream in;
    private String interpreter = "python3";
    private Thread drain;
    /** The configuration pushed so far: a restarted bridge gets it again. */
    private Map<String, String> configured = Map.of();
    private static final Pattern SGR = Pattern.compile("\u001b\\[[0-9]+(;[0-9]+){0,2}m");
    private String initCode = "";

    /** @param command the bridge, e.g. {@code [python3, /dockyard/bin/ipython-bridge]} */
    public JupyterPlugin(List<String> command, Map<String, String> environment) {
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized void start() throws PluginException {
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().clear();
            builder.environment().putAll(environment);
            bridge = builder.start();
        } catch (IOException e) {
            throw new PluginException("the jupyter plugin could not start its kernel bridge: " + e.getMessage(), e);
        }
        in = bridge.getOutputStream();
        out = new BufferedReader(new InputStreamReader(bridge.getInputStream(), StandardCharsets.UTF_8));
        drain = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(bridge.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    synchronized (stderr) {
                        stderr.append(line).append('\n');
                        if (stderr.length() > 4000) {
                            stderr.delete(0, stderr.length() - 4000);
                        }
                    }
                }
            } catch (IOException ignored) {
                // the bridge is gone
            }
        }, "jupyter-bridge-stderr");
        drain.setDaemon(true);
        drain.start();
        JsonObject hello;
        try {
            hello = readLine(START_TIMEOUT);
        } catch (IOException e) {
            throw new PluginException("the jupyter kernel did not start: " + e.getMessage() + lastWords());
        }
        if (!hello.getBoolean("ready", false)) {
            throw new PluginException("the jupyter kernel did not start" + lastWords());
        }
        interpreter = hello.getString("interpreter", interpreter);
    }

    private String lastWords() {
        if (bridge != null && !bridge.isAlive() && drain != null) {
            try {
                // a bridge that exited may still have its last words in the pipe
                drain.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (stderr) {
            String log = stderr.toString().strip();
            return log.isEmpty() ? "" : "; its output:\n" + log;
        }
    }

    @Override
    public boolean serves(Action action) {
        return action instanceof IPythonRunCellAction;
    }

    @Override
    public synchronized Observation execute(Action action, Duration timeout, Path cwd) {
        IPythonRunCellAction cell = (IPythonRunCellAction) action;
        JsonObjectBuilder request = Jsonp.createObjectBuilder().add("op", "execute").add("code", cell.code())
                .add("timeout", timeout.toMillis() / 1000.0).add("cwd", cwd.toString());
        if (!cell.kernelInitCode().isEmpty()) {
            initCode = cell.kernelInitCode();
        }
        // always the latest: a bridge started again has forgotten it, and runs it before the first cell
        if (!initCode.isEmpty()) {
            request.add("init", initCode);
        }
        JsonObject answer;
        try {
            answer = call(request.build(), timeout.plus(GRACE));
        } catch (IOException e) {
            return ErrorObservation.of("The IPython kernel bridge failed: " + e.getMessage() + lastWords());
        }
        // OpenHands' texts (plugins/jupyter/execute_server.py JupyterKernel.execute): the timeout
        // line and the no-output line; colours are stripped from all of the text as its strip_ansi
        // does, and the output is right-stripped as its run_ipython does
        String output = PythonStrings.rstrip(stripAnsi(answer.getString("output", "")));
        boolean timedOut = answer.getBoolean("timed_out", false);
        boolean restarted = answer.getBoolean("restarted", false);
        List<String> lines = new ArrayList<>();
        if (!output.isEmpty()) {
            lines.add(output);
        }
        if (timedOut) {
            lines.add("[Execution timed out (" + PythonNumbers.seconds(cell.timeout(), timeout) + " seconds).]");
        } else if (output.isEmpty() && !restarted && answer.getJsonArray("images").isEmpty()) {
            lines.add(NO_OUTPUT);
        }
        if (restarted) {
            lines.add(timedOut
                    ? "[The cell did not stop when interrupted: the kernel was restarted and its variables are gone.]"
                    : "[The kernel died and was restarted: its variables are gone.]");
        }
        StringBuilder content = new StringBuilder(String.join("\n", lines));
        if (cell.includeExtra()) {
            content.append("\n[Jupyter current working directory: ").append(cwd).append("]")
                    .append("\n[Jupyter Python interpreter: ").append(interpreter).append("]");
        }
        List<String> images = new ArrayList<>();
        answer.getJsonArray("images").forEach(v -> images.add(((JsonString) v).getString()));
        return new IPythonRunCellObservation(content.toString(), cell.code(), images);
    }

    /** OpenHands' {@code strip_ansi}: only SGR sequences with one to three numeric parameters. */
    static String stripAnsi(String text) {
        return text.indexOf('\u001b') < 0 ? text : SGR.matcher(text).replaceAll("");
    }

    @Override
    public synchronized void configure(Map<String, String> variables) {
        configured = Map.copyOf(variables);
        try {
            call(envRequest(variables), Duration.ofSeconds(60));
        } catch (IOException e) {
            // the next cell reports a broken bridge; configuration must not fail the executor
        }
    }

    private JsonObject call(JsonObject request, Duration timeout) throws IOException {
        if (bridge == null || !bridge.isAlive()) {
            restartBridge();
        }
        in.write((request.toString() + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        return readLine(timeout);
    }

    private static JsonObject envRequest(Map<String, String> variables) {
        JsonObjectBuilder env = Jsonp.createObjectBuilder();
        variables.forEach(env::add);
        return Jsonp.createObjectBuilder().add("op", "env").add("env", env).build();
    }

    /** A bridge that died (or was stopped for not answering) is started again, with the configuration it had. */
    private void restartBridge() throws IOException {
        if (bridge != null) {
            bridge.destroyForcibly();
        }
        try {
            start();
        } catch (PluginException e) {
            throw new IOException("the kernel bridge could not be started again: " + e.getMessage(), e);
        }
        if (!configured.isEmpty()) {
            in.write((envRequest(configured) + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            readLine(Duration.ofSeconds(60));
        }
    }

    private JsonObject readLine(Duration timeout) throws IOException {
        Future<String> line = reader.submit(out::readLine);
        String text;
        try {
            text = line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            line.cancel(true);
            bridge.destroyForcibly();
            throw new IOException("no answer within " + timeout.toSeconds() + " s; the bridge was stopped");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        }
        if (text == null) {
            throw new IOException("the bridge exited (code " + waitFor() + ")");
        }
        try (JsonReader json = Jsonp.createReader(new StringReader(text))) {
            return json.readObject();
        }
    }

    private int waitFor() {
        try {
            return bridge.waitFor(5, TimeUnit.SECONDS) ? bridge.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        if (bridge != null) {
            bridge.destroy();
        }
        reader.shutdownNow();
    }
}
