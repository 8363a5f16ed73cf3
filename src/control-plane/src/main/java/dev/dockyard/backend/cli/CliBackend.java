package dev.dockyard.backend.cli;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.backend.TarStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The backend of a {@code cli} node (see the package comment): runtimes as directories and
 * in-process shells on the control plane's own host. What the control plane holds in memory is
 * the running side; the directories with their markers are what survives a restart, and what
 * {@link #listManaged} reports.
 */
public final class CliBackend implements RuntimeBackend {

    private static final Logger LOG = Logger.getLogger(CliBackend.class.getName());
    public static final String NAME = "cli";
    private static final String WORKSPACE = "/workspace";

    private final CliNodeConfig node;
    private final Clock clock;
    private final Map<String, CliRuntime> runtimes = new ConcurrentHashMap<>();
    /** The loopback servers' request threads: an action blocks one for as long as it runs. */
    private final ExecutorService threads;

    public CliBackend(CliNodeConfig node, Clock clock) {
        this.node = node;
        this.clock = clock;
        this.threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "cli-executor-" + node.node());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The root must be a directory this process can write: else the node takes no runtime. */
    /** A node of this host: its probe checks files; its processes are reconciled whatever it says. */
    @Override
    public BackendCapabilities capabilities() {
        return BackendCapabilities.ENGINE.onThisHost();
    }

    @Override
    public void ping() {
        try {
            Files.createDirectories(node.root());
        } catch (IOException e) {
            throw new BackendException("cli node '" + node.node() + "' cannot make its root " + node.root() + ": "
                    + e.getMessage(), e);
        }
        if (!Files.isWritable(node.root())) {
            throw new BackendException("cli node '" + node.node() + "': its root " + node.root() + " is not writable");
        }
    }

    @Override
    public String create(SandboxSpec spec) {
        String refused = refusal(spec);
        if (refused != null) {
            throw new BackendException("cli node '" + node.node() + "' " + refused);
        }
        ping();
        RuntimeDirectory directory = RuntimeDirectory.of(node.root(), spec.name());
        try {
            directory.create(new RuntimeDirectory.Marker(spec.runtimeId(), spec.conversationId(), spec.controlPlane(),
                    clock.instant()));
        } catch (IOException e) {
            throw new BackendException("cli node '" + node.node() + "' could not make the runtime's directory: "
                    + e.getMessage(), e);
        }
        runtimes.put(spec.name(), new CliRuntime(directory, spec.sessionKey()));
        return spec.name();
    }

    /** Why the node cannot run this sandbox as asked, or null: what it cannot give is refused, never dropped. */
    static String refusal(SandboxSpec spec) {
        if (spec.process() != null) {
            return "runs Dockyard's executor in the control plane, never an image's own program ('" + spec.image()
                    + "')";
        }
        if (!spec.plugins().isEmpty()) {
            return "starts no executor plugins (asked for " + spec.plugins() + ")";
        }
        if (spec.workspace() != null && spec.workspace().kind() != SandboxWorkspace.Kind.FRESH) {
            return "keeps no workspace volumes or snapshots: its runtimes start with an empty directory";
        }
        if (spec.egress().mode() != EgressPolicy.OPEN.mode()) {
            return "cannot restrict a runtime's network (egress '" + spec.egress().mode().apiName() + "')";
        }
        return null;
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        return startWith(sandboxName, null, executorPort);
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        return startWith(sandboxName, sessionKey, executorPort);
    }

    private URI startWith(String sandboxName, String sessionKey, int executorPort) {
        CliRuntime runtime = held(sandboxName, sessionKey);
        synchronized (runtime) {
            try {
                return runtime.start(sessionKey, executorPort, threads);
            } catch (IOException | RuntimeException e) {
                runtime.stop();
                throw new BackendException("cli runtime " + sandboxName + " could not start its shell: "
                        + e.getMessage(), e);
            }
        }
    }

    /** The runtime held in memory, or one of a directory left by an earlier run of this control plane. */
    private CliRuntime held(String sandboxName, String sessionKey) {
        CliRuntime runtime = runtimes.get(sandboxName);
        if (runtime != null) {
            return runtime;
        }
        RuntimeDirectory directory = RuntimeDirectory.of(node.root(), sandboxName);
        if (!directory.exists()) {
            throw new BackendException("cli runtime " + sandboxName + " does not exist on node '" + node.node() + "'");
        }
        if (sessionKey == null) {
            throw new BackendException("cli runtime " + sandboxName + " was left by an earlier run: it needs its "
                    + "session key again");
        }
        return runtimes.computeIfAbsent(sandboxName, n -> new CliRuntime(directory, sessionKey));
    }

    /**
     * The executor's address; the runtime's other ports (the runtime API's work ports) are not
     * published: a server the agent starts listens on the host itself.
     */
    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        CliRuntime runtime = runtimes.get(sandboxName);
        URI uri = runtime == null ? null : runtime.uri(executorPort);
        if (uri == null) {
            throw new BackendException("cli runtime " + sandboxName + " is not running, or publishes no port "
                    + executorPort);
        }
        return uri;
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        // no cgroup of its own: nothing to settle (docs/backends.md "CLI backend": no resource limits)
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        CliRuntime runtime = runtimes.get(sandboxName);
        if (runtime != null) {
            return new SandboxState(runtime.phase(), null, "");
        }
        RuntimeDirectory directory = RuntimeDirectory.of(node.root(), sandboxName);
        return directory.exists() ? new SandboxState(SandboxState.Phase.EXITED, null, "") : SandboxState.missing();
    }

    @Override
    public void pause(String sandboxName) {
        CliRuntime runtime = running(sandboxName, "paused");
        synchronized (runtime) {
            if (runtime.phase() == SandboxState.Phase.RUNNING) {
                signal(runtime, true);
            }
        }
    }

    @Override
    public void unpause(String sandboxName) {
        CliRuntime runtime = running(sandboxName, "thawed");
        synchronized (runtime) {
            if (runtime.phase() == SandboxState.Phase.PAUSED) {
                signal(runtime, false);
            }
        }
    }

    private static void signal(CliRuntime runtime, boolean freeze) {
        try {
            runtime.signal(freeze);
        } catch (IllegalStateException e) {
            throw new BackendException(e.getMessage(), e);
        }
    }

    private CliRuntime running(String sandboxName, String what) {
        CliRuntime runtime = runtimes.get(sandboxName);
        if (runtime == null || runtime.phase() == SandboxState.Phase.CREATED
                || runtime.phase() == SandboxState.Phase.EXITED) {
            throw new BackendException("cli runtime " + sandboxName + " is not running: it cannot be " + what);
        }
        return runtime;
    }

    @Override
    public void stop(String sandboxName) {
        CliRuntime runtime = runtimes.get(sandboxName);
        if (runtime != null) {
            synchronized (runtime) {
                runtime.stop();
            }
        }
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        List<ManagedSandbox> found = new ArrayList<>();
        if (!Files.isDirectory(node.root())) {
            return found;
        }
        try (Stream<Path> dirs = Files.list(node.root())) {
            for (Path dir : dirs.toList()) {
                RuntimeDirectory directory = new RuntimeDirectory(dir);
                if (!directory.exists()) {
                    continue;
                }
                directory.marker().filter(m -> m.controlPlane().equals(controlPlane)).ifPresent(m -> found.add(
                        new ManagedSandbox(directory.name(), m.runtimeId(), m.conversationId(), m.createdAt(),
                                inspect(directory.name()).phase())));
            }
        } catch (IOException e) {
            throw new BackendException("cli node '" + node.node() + "' cannot list " + node.root() + ": "
                    + e.getMessage(), e);
        }
        return found;
    }

    /**
     * A tar of {@code /workspace} (or below it), its last component as the top entry, its files
     * owned by the sandbox user: a sandbox it is restored into gives them to its agent. The stream
     * ends in an IOException when tar fails ({@link TarStream}).
     */
    @Override
    public InputStream archive(String sandboxName, String path) {
        // "dir/." is the directory's contents (entries "./…"), as the engine's archive of it gives them
        boolean contents = path.endsWith("/.");
        Path source = hostPath(sandboxName, contents ? path.substring(0, path.length() - 2) : path);
        if (!Files.exists(source)) {
            throw new BackendException("cli runtime " + sandboxName + " has no " + path);
        }
        String owner = String.valueOf(node.sandboxUid());
        ProcessBuilder tar = new ProcessBuilder("tar", "-C", (contents ? source : source.getParent()).toString(),
                "--numeric-owner", "--owner=" + owner, "--group=" + owner, "-cf", "-", "--",
                contents ? "." : source.getFileName().toString());
        try {
            return TarStream.start(tar);
        } catch (IOException e) {
            throw new BackendException("could not archive " + path + " of cli runtime " + sandboxName + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Unpacks a tar into the runtime's directory ({@code /} is the directory itself, where a
     * {@code workspace} entry lands as its workspace), owned by this process's user: a Docker
     * sandbox's files become the runtime's here. Only the {@code workspace} entry is taken from a
     * tar for {@code /}.
     */
    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        Path target = hostPath(sandboxName, directory);
        List<String> command = new ArrayList<>(List.of("tar", "-C", target.toString(), "-xf", "-",
                "--no-same-owner", "--no-overwrite-dir"));
        if (directory.equals("/")) {
            command.add("workspace");
        }
        try {
            Files.createDirectories(target);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (OutputStream in = process.getOutputStream()) {
                tar.transferTo(in);
            }
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new BackendException("could not unpack into " + directory + " of cli runtime " + sandboxName
                        + ": " + output.strip());
            }
        } catch (IOException e) {
            throw new BackendException("could not unpack into " + directory + " of cli runtime " + sandboxName + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while unpacking into cli runtime " + sandboxName, e);
        }
    }

    /**
     * A sandbox path as this runtime has it: {@code /} is its directory, {@code /workspace...} its
     * workspace; nothing else of a sandbox exists here.
     */
    private Path hostPath(String sandboxName, String path) {
        RuntimeDirectory directory = RuntimeDirectory.of(node.root(), sandboxName);
        if (!directory.exists()) {
            throw new BackendException("cli runtime " + sandboxName + " does not exist on node '" + node.node() + "'");
        }
        String normal = Path.of(path).normalize().toString();
        if (normal.equals("/")) {
            return directory.path();
        }
        if (normal.equals(WORKSPACE) || normal.startsWith(WORKSPACE + "/")) {
            return directory.workspace().resolve(Path.of(WORKSPACE).relativize(Path.of(normal)).toString())
                    .normalize();
        }
        throw new BackendException("cli runtime " + sandboxName + " has only " + WORKSPACE + ", not " + path);
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        throw new BackendException("cli node '" + node.node() + "' runs no image's own program");
    }

    @Override
    public void remove(String sandboxName) {
        CliRuntime runtime = runtimes.remove(sandboxName);
        if (runtime != null) {
            synchronized (runtime) {
                runtime.stop();
            }
        }
        RuntimeDirectory directory = RuntimeDirectory.of(node.root(), sandboxName);
        try {
            directory.delete();
        } catch (IOException e) {
            throw new BackendException("could not remove the directory of cli runtime " + sandboxName + ": "
                    + e.getMessage(), e);
        }
    }

    /** Ends every runtime's shell with the control plane; their directories stay for the reconciler. */
    public void close() {
        runtimes.values().forEach(runtime -> {
            synchronized (runtime) {
                try {
                    runtime.stop();
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "stopping a cli runtime", e);
                }
            }
        });
        threads.shutdownNow();
    }
}
