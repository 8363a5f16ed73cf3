package dev.dockyard.executor;

import dev.dockyard.executor.bash.BashSession;
import dev.dockyard.executor.bash.StaticCommand;
import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.executor.envd.Envd;
import dev.dockyard.executor.files.FileActions;
import dev.dockyard.executor.files.FileEditor;
import dev.dockyard.executor.files.FileTransfer;
import dev.dockyard.executor.files.PathGuard;
import dev.dockyard.executor.plugins.BrowserPlugin;
import dev.dockyard.executor.plugins.JupyterPlugin;
import dev.dockyard.executor.plugins.Plugin;
import dev.dockyard.executor.plugins.Plugins;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.ActionType;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileEditAction;
import dev.dockyard.protocol.FileReadAction;
import dev.dockyard.protocol.FileWriteAction;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.SecurityRisk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries out actions, one at a time (a second concurrent action waits its turn, fairly).
 *
 * <p>Owns the sandbox's persistent shell: started when the executor starts, and started again
 * when the agent ends it (e.g. with {@code exit}). Pure Java with no container dependencies, so
 * it is testable outside the application server.
 */
public class ActionExecutor implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ActionExecutor.class.getName());
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final ExecutorSettings settings;
    private final Map<String, String> shellEnvironment;
    private final ReentrantLock turn = new ReentrantLock(true);
    private final PathGuard guard;
    private final FileActions files;
    private final FileTransfer transfer;
    private final FileEditor editor;
    private final long startedAtMillis = System.currentTimeMillis();
    private volatile long lastActionAtMillis = startedAtMillis;
    private volatile BashSession shell;
    private final AtomicBoolean configurationPending = new AtomicBoolean();
    private final Object configurationFile = new Object();
    private final Plugins plugins;
    private final Path configuredEnv;
    private final Path gitToken;
    /** What {@link #configure} last set: every process envd starts gets it. */
    private volatile Map<String, String> configuredVariables = Map.of();
    private final Envd envd;

    /** The executor of a sandbox: configuration in {@link #CONFIGURED_ENV}'s directory, files confined to the workspace. */
    public ActionExecutor(ExecutorSettings settings, Map<String, String> processEnvironment) throws IOException {
        this(settings, processEnvironment, CONFIGURED_ENV.getParent(), null);
    }

    /**
     * An executor embedded in a host process, one of several (the control plane's {@code cli}
     * runtimes): {@code configDirectory} is this runtime's own private directory for its pushed
     * configuration and long commands, and {@code guard} (null: the workspace's default guard)
     * confines its file actions.
     */
    public ActionExecutor(ExecutorSettings settings, Map<String, String> processEnvironment, Path configDirectory,
                          PathGuard guard) throws IOException {
        this.settings = settings;
        this.shellEnvironment = shellEnvironment(processEnvironment);
        this.configuredEnv = configDirectory.resolve(CONFIGURED_ENV.getFileName());
        this.gitToken = configDirectory.resolve(GIT_TOKEN.getFileName());
        Files.createDirectories(settings.workspace());
        this.guard = guard != null ? guard : new PathGuard(settings.workspace(), settings.filesAnywhere());
        this.files = new FileActions(this.guard);
        this.transfer = new FileTransfer(this.guard);
        this.editor = new FileEditor(this.guard);
        // a sandbox started by hand the way OpenHands starts one (its _default_env_vars) lints too
        lintEditsIfAsked(processEnvironment);
        this.shell = startShell();
        this.plugins = Plugins.start(settings.plugins(), this::plugin);
        this.envd = new Envd(shellEnvironment, () -> configuredVariables);
    }

    /** E2B's envd in this executor: its processes and watches end with it. */
    public Envd envd() {
        return envd;
    }

    /** The bridge to a plugin's own processes, with the shell's environment (never the executor's secrets). */
    private Plugin plugin(String name) {
        if (name.equals(JupyterPlugin.NAME)) {
            return new JupyterPlugin(List.of("python3",
                    settings.bundle().resolve("bin/ipython-bridge").toString()), shellEnvironment);
        }
        if (name.equals(BrowserPlugin.NAME)) {
            return new BrowserPlugin(shellEnvironment, settings.workspace(), Clock.systemDefaultZone());
        }
        throw new IllegalArgumentException("unknown plugin '" + name + "'");
    }

    public Plugins plugins() {
        return plugins;
    }

    /** The executor's own secrets and the application server's variables stay out of the shell. */
    static Map<String, String> shellEnvironment(Map<String, String> processEnvironment) {
        Map<String, String> env = new HashMap<>(processEnvironment);
        ExecutorSettings.PRIVATE_ENV.forEach(env::remove);
        env.keySet().removeIf(k -> k.startsWith("WLP_") || k.equals("JVM_ARGS") || k.equals("LOG_DIR")
                || k.equals("WLP_OUTPUT_DIR") || k.equals("SERVER_WORKING_DIR"));
        return env;
    }

    /** Where configuration pushed after start lives: the key's directory, 700, owned by the sandbox user. */
    static final Path CONFIGURED_ENV = Path.of(System.getenv().getOrDefault("DOCKYARD_CONFIG_DIR", "/opt/dockyard/run"),
            "env.sh");

    private BashSession startShell() throws IOException {
        BashSession started = BashSession.start(settings.shell(), settings.workspace(), shellEnvironment,
                settings.noOutputTimeout(), privateDirectory());
        configurationPending.set(false);
        if (Files.exists(configuredEnv)) {
            started.execute(sourceConfigured(), settings.defaultTimeout());
        }
        return started;
    }

    /**
     * Where long commands are written for the shell to source: the configuration's directory
     * (700, the sandbox user's); outside a sandbox, where that cannot be made, a private
     * temporary directory.
     */
    private Path privateDirectory() throws IOException {
        Path dir = configuredEnv.getParent();
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            LOG.log(Level.FINE, "no " + dir + "; long commands go to a temporary directory", e);
            return Files.createTempDirectory("dockyard-shell", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        }
    }

    private CmdRunAction sourceConfigured() {
        String file = configuredEnv.toString();
        // a runtime directory chosen by an administrator may hold any character; the sandbox's never does
        return new CmdRunAction(". " + (file.matches("[A-Za-z0-9/._-]+") ? file : BashSession.shellQuote(file)), false, "", true, false, null, true,
                SecurityRisk.LOW, null);
    }

    /**
     * The variable OpenHands sets in its sandboxes for {@code sandbox.enable_auto_lint}; the control
     * plane sets it for {@code sandbox.enableAutoLint} (or the agent's {@code enable-auto-lint}).
     */
    public static final String AUTO_LINT_ENV = "ENABLE_AUTO_LINT";

    /** A variable set to true turns the editor's lint on, to anything else off; absent, it changes nothing. */
    private void lintEditsIfAsked(Map<String, String> variables) {
        String value = variables.get(AUTO_LINT_ENV);
        if (value != null) {
            editor.lintEdits("true".equalsIgnoreCase(value.strip()));
        }
    }

    /** Whether the editor appends lint results to its str_replace and insert answers. */
    public boolean lintsEdits() {
        return editor.lintsEdits();
    }

    /** How configuration reached the persistent shell. */
    public enum Delivery {
        /** Sourced into the shell before the answer. */
        SOURCED,
        /** A command was running: the shell sources it before the next command the agent runs. */
        PENDING
    }

    /**
     * Configuration pushed by the control plane after the executor is ready (warm sandboxes are
     * configured late, credentials are refreshed): variables are written to a file only the
     * sandbox user can read and sourced into the persistent shell (and into any shell started
     * later); they never pass through a command line, a process argument or an observation.
     *
     * <p>A running command must neither hold this call (an action may block for minutes) nor make
     * the shell miss the values: when the shell is busy, the file is sourced, hidden, just before
     * the next command the agent runs in it.
     */
    public Delivery configure(Map<String, String> variables, String fileAccess) throws IOException {
        synchronized (configurationFile) {
            StringBuilder script = new StringBuilder("# written by the Dockyard executor\n");
            variables.forEach((k, v) -> script.append("export ").append(k).append('=')
                    .append(BashSession.shellQuote(v)).append('\n'));
            Files.createDirectories(configuredEnv.getParent());
            replacePrivately(configuredEnv, script.toString());
            // set only once the file is in place, so whoever clears it sources these values
            configurationPending.set(true);
            configuredVariables = Map.copyOf(variables);
        }
        if (fileAccess != null) {
            guard.allowAnywhere("anywhere".equalsIgnoreCase(fileAccess));
        }
        lintEditsIfAsked(variables);
        plugins.configure(variables);
        if (!turn.tryLock()) {
            return configurationPending.get() ? Delivery.PENDING : Delivery.SOURCED;
        }
        try {
            liveShell();
            sourcePendingConfiguration();
            return configurationPending.get() ? Delivery.PENDING : Delivery.SOURCED;
        } finally {
            turn.unlock();
        }
    }

    /** With the turn held: sources the configuration file if it changed and the shell is idle. */
    private void sourcePendingConfiguration() throws IOException {
        if (!configurationPending.compareAndSet(true, false)) {
            return;
        }
        boolean sourced = false;
        try {
            sourced = shell.runIfIdle(sourceConfigured(), settings.defaultTimeout());
        } finally {
            if (!sourced) {
                configurationPending.set(true);
            }
        }
    }

    /** Where git's credential helper finds the token (the key's directory: 700, the sandbox user's). */
    static final Path GIT_TOKEN = CONFIGURED_ENV.resolveSibling("git-token");

    /**
     * Gives git (and nothing else) a token for one server ({@code scope}: scheme://host[:port]): a
     * file only the sandbox user can read, answered by the bundle's credential helper, which git's
     * global configuration names for that URL only, so a clone from elsewhere never receives it.
     * The token never enters a remote URL, .git/config, the environment or a process argument.
     */
    public void configureGit(String token, String scope) throws IOException {
        turn.lock();
        try {
            replacePrivately(gitToken, token);
            ProcessBuilder git = new ProcessBuilder("git", "config", "--global", "credential." + scope + ".helper",
                    settings.bundle().resolve("bin/git-credential-dockyard").toString())
                    .redirectErrorStream(true);
            // git's global configuration is the agent's (its HOME), never the host process's
            git.environment().clear();
            git.environment().putAll(shellEnvironment);
            Process gitConfig = git.start();
            gitConfig.getInputStream().readAllBytes();
            if (gitConfig.waitFor() != 0) {
                throw new IOException("git config failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            turn.unlock();
        }
    }

    /**
     * Replaces {@code file} with {@code content} at once (a sibling written first, then moved over
     * it), readable by its owner only. The sibling has a fixed name, not {@code Files.createTempFile}'s
     * random one, whose first use seeded a {@code SecureRandom} that a sandbox's first
     * {@code /configure} waited for. A fixed name is safe because one executor owns the directory
     * (a sandbox's, or one {@code cli} runtime's) and each file's writer holds a lock; the agent's
     * shell may reach the directory too, but a link it puts there is removed, not followed.
     */
    private static void replacePrivately(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        // one left by a killed executor; CREATE_NEW then refuses anything put there meanwhile, links too
        Files.deleteIfExists(tmp);
        try (SeekableByteChannel out = Files.newByteChannel(tmp, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public Observation execute(Action action) {
        turn.lock();
        try {
            lastActionAtMillis = System.currentTimeMillis();
            Duration timeout = action.timeout() == null ? settings.defaultTimeout()
                    : Duration.ofMillis((long) (action.timeout() * 1000));
            return dispatch(action, timeout);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "action " + action.type().wireName() + " failed", e);
            return ErrorObservation.of("The executor could not carry out the action: " + e.getMessage());
        } finally {
            lastActionAtMillis = System.currentTimeMillis();
            turn.unlock();
        }
    }

    private Observation dispatch(Action action, Duration timeout) throws IOException {
        if (action instanceof CmdRunAction run) {
            if (run.isStatic()) {
                Path cwd = run.cwd() == null ? liveShell().workingDirectory() : Path.of(run.cwd());
                return StaticCommand.run(settings.shell(), run, cwd, shellEnvironment, timeout);
            }
            BashSession live = liveShell();
            if (!run.isInput() && !run.command().isBlank()) {
                sourcePendingConfiguration();
            }
            return live.execute(run, timeout);
        }
        if (action instanceof FileReadAction read) {
            // as OpenHands: only the oh_aci read is the editor's view; the default read ignores view_range
            if ("oh_aci".equals(read.implSource())) {
                return editor.view(read.path(), read.viewRange(), settings.workspace());
            }
            return files.read(read, liveShell().workingDirectory());
        }
        if (action instanceof FileEditAction edit) {
            // oh_aci suggests "Maybe you meant" from its workspace root, as OpenHands' editor (its initial
            // cwd); the legacy edit resolves a relative path from the shell's directory
            return editor.edit(edit, edit.command() == null ? liveShell().workingDirectory() : settings.workspace());
        }
        if (action instanceof FileWriteAction write) {
            return files.write(write, liveShell().workingDirectory());
        }
        var plugin = plugins.serving(action);
        if (plugin.isPresent()) {
            return plugin.get().execute(action, timeout, liveShell().workingDirectory());
        }
        String needs = action.type() == ActionType.RUN_IPYTHON ? "jupyter" : "browser";
        return ErrorObservation.of("Action '" + action.type().wireName() + "' needs the " + needs + " plugin, which "
                + "this sandbox was not started with (provision it with \"sandbox\": {\"plugins\": [\"" + needs
                + "\"]}).");
    }

    private BashSession liveShell() throws IOException {
        if (!shell.isAlive()) {
            shell.close();
            shell = startShell();
        }
        return shell;
    }

    public double uptimeSeconds() {
        return (System.currentTimeMillis() - startedAtMillis) / 1000.0;
    }

    public double idleSeconds() {
        return turn.isLocked() ? 0 : (System.currentTimeMillis() - lastActionAtMillis) / 1000.0;
    }

    /**
     * The persistent shell's process (the {@code script} process holding its terminal): its
     * descendants are everything the agent's commands started and did not detach.
     */
    public ProcessHandle shellProcess() {
        return shell.process();
    }

    /** The shell's current directory, where relative paths of file requests start. */
    public Path workingDirectory() {
        return shell.workingDirectory();
    }

    public PathGuard guard() {
        return guard;
    }

    public FileTransfer transfer() {
        return transfer;
    }

    public Path workspace() {
        return settings.workspace();
    }

    @Override
    public void close() {
        envd.close();
        plugins.close();
        shell.close();
    }
}
