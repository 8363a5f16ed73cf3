package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.backend.TarStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sandboxes as host processes of this machine (see the package comment for the model). Calls on
 * one sandbox are serialised by a lock per name; the record on disk, not memory, is the truth, so
 * a control plane restarted after {@code kill -9} finds its sandboxes again.
 */
public class LocalBackend implements RuntimeBackend {

    /** What {@link #name()} answers: a local node's type. */
    public static final String NAME = "local";

    private static final Logger LOG = Logger.getLogger(LocalBackend.class.getName());

    /** The variable every process of a sandbox inherits: how its processes are found. */
    public static final String SANDBOX_VARIABLE = "DOCKYARD_SANDBOX";
    static final String WORKSPACE = "workspace";
    static final String KEY_DIR = "run";
    static final String KEY_FILE = "session-key";
    static final String PLUGINS_FILE = "plugins";
    /** Where the executor's /workspace is, as the control plane names it for archives. */
    static final String CONTAINER_WORKSPACE = "/workspace";
    private static final List<String> DIRECTORIES = List.of(WORKSPACE, KEY_DIR, "home", "tmp", "liberty");
    /** sh -c script: the umask 022, join the n cgroups named first, then exec the rest of the arguments. */
    static final String JOIN_CGROUPS = "umask 022; n=$1; shift; while [ \"$n\" -gt 0 ]; do echo $$ > \"$1/cgroup.procs\" || exit 70; "
            + "shift; n=$((n - 1)); done; exec \"$@\"";
    /** sh -c script: bind the directory named first onto /tmp, then exec the rest of the arguments. */
    static final String PRIVATE_TMP = "mount --bind \"$0\" /tmp || exit 71; exec \"$@\"";
    /**
     * bash -c script, the first process of a sandbox's pid namespace: runs the executor, hands it
     * SIGTERM, and reaps every orphan the namespace hands it meanwhile (bash reaps any child that
     * exits, known or not) until the executor exits.
     */
    static final String INIT = "\"$@\" & child=$!; trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT HUP; "
            + "status=0; while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; status=$?; done; exit $status";
    private static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final LocalNodeConfig config;
    private final SandboxUser user;
    private final ProcessTable processes;
    private final CgroupLimits cgroups;
    private final Clock clock;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** The processes each pause stopped (the others were stopped before it), by sandbox. */
    private final Map<String, List<Long>> stoppedByPause = new ConcurrentHashMap<>();
    /** The sockets seen to be each running sandbox's own, with the process they descend from. */
    private final Map<String, Listener> listeners = new ConcurrentHashMap<>();
    /** Whether sandboxes get a /tmp of their own (a mount namespace: root, and a host that allows it). */
    private final boolean privateTmp;
    /** Whether the sandbox user was seen to reach the bundle and the sandboxes' directory. */
    private volatile boolean reachable;

    public LocalBackend(LocalNodeConfig config, SandboxUser user, ProcessTable processes, CgroupLimits cgroups,
                        Clock clock) {
        this.config = config;
        this.user = user;
        this.processes = processes;
        this.cgroups = cgroups;
        this.clock = clock;
        this.privateTmp = user.switched() && canUnshareMounts();
        if (user.switched() && !privateTmp) {
            LOG.warning("Local node '" + config.node() + "': no mount namespaces here (unshare --mount failed); "
                    + "its sandboxes share the host's /tmp");
        }
        try {
            createReachable(config.root());
            Files.createDirectories(config.records());
            Files.createDirectories(config.sandboxes());
            // the records (pids the control plane signals) are root's alone; the sandboxes'
            // parent only lets the sandbox user reach its own directories by name
            Files.setPosixFilePermissions(config.root(), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(config.records(), PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(config.sandboxes(), PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw new IllegalStateException("local node '" + config.node() + "': cannot use " + config.root() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Creates {@code dir} and its missing parents with mode 755 whatever the umask (Liberty's is
     * 027): the sandbox user must pass through them to its own directory and to the bundle.
     */
    static void createReachable(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        List<Path> missing = new ArrayList<>();
        for (Path p = absolute; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p);
            } catch (FileAlreadyExistsException e) {
                continue;
            }
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    /** A node of this host: its probe checks files; its processes are reconciled whatever it says. */
    @Override
    public BackendCapabilities capabilities() {
        return BackendCapabilities.ENGINE.onThisHost();
    }

    @Override
    public void ping() {
        if (!Files.isExecutable(startScript())) {
            throw new BackendException("local node '" + config.node() + "': no executor bundle at " + config.bundle()
                    + " (bin/start-executor missing)");
        }
        if (!Files.isWritable(config.records())) {
            throw new BackendException("local node '" + config.node() + "': " + config.records() + " is not writable");
        }
        if (user.switched() && !reachable) {
            // a directory on the way that the sandbox user may not pass (a 700 home, a 027 umask)
            reachable = asSandboxUser(List.of("test", "-x", startScript().toString())) == 0
                    && asSandboxUser(List.of("test", "-x", config.sandboxes().toString())) == 0;
            if (!reachable) {
                throw new BackendException("local node '" + config.node() + "': user " + user.name() + " cannot reach "
                        + startScript() + " or " + config.sandboxes() + " (a directory on the way is closed to others)");
            }
        }
    }

    private static boolean canUnshareMounts() {
        try {
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether this node's sandboxes have a /tmp of their own. */
    public boolean privateTmp() {
        return privateTmp;
    }

    private int asSandboxUser(List<String> command) {
        try {
            Process p = asSandbox(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(10, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (IOException e) {
            throw new BackendException("could not run setpriv: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * {@code command} as the sandbox user (as this process's user when it cannot switch), with
     * nothing of the control plane's environment: a process of that user is the sandbox's to
     * read, its environment too.
     */
    private ProcessBuilder asSandbox(List<String> command) {
        List<String> full = new ArrayList<>();
        if (user.switched()) {
            full.addAll(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--clear-groups"));
        }
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full);
        builder.environment().clear();
        builder.environment().put("PATH", PATH);
        builder.environment().put("LANG", "C.UTF-8");
        return builder;
    }

    private Path startScript() {
        return config.bundle().resolve("bin").resolve("start-executor");
    }

    private Object lock(String name) {
        return locks.computeIfAbsent(name, n -> new Object());
    }

    @Override
    public String create(SandboxSpec spec) {
        if (spec.process() != null) {
            throw new BackendException("local node '" + config.node() + "' runs Dockyard's executor only, not an "
                    + "image's own program");
        }
        if (spec.egress().mode() != EgressPolicy.Mode.OPEN) {
            throw new BackendException("local node '" + config.node() + "' cannot confine a sandbox's network (egress "
                    + spec.egress().mode().apiName() + "): host processes share the host's network");
        }
        if (spec.workspace() != null && spec.workspace().kind() != SandboxWorkspace.Kind.FRESH) {
            throw new BackendException("local node '" + config.node() + "' keeps no workspace volumes or snapshots");
        }
        String name = checkedName(spec.name());
        synchronized (lock(name)) {
            if (Files.exists(recordFile(name)) || Files.exists(sandboxDir(name))) {
                throw new BackendException("a local sandbox named '" + name + "' already exists");
            }
            Path dir = sandboxDir(name);
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                for (String sub : DIRECTORIES) {
                    Files.createDirectory(dir.resolve(sub));
                }
                Files.setPosixFilePermissions(dir.resolve(KEY_DIR), PosixFilePermissions.fromString("rwx------"));
                handKey(name, spec.sessionKey(), spec.plugins());
                chown(dir);
                Map<String, String> labels = new LinkedHashMap<>(spec.labels());
                writeRecord(new SandboxRecord(name, labels, 0, clock.instant(), null, false, spec.memoryMb(),
                        spec.executorServer()));
                // the boot may use more CPU than the steady limit settle() applies (SandboxSpec.bootCpus)
                cgroups.prepare(name, spec.bootCpus() == 0 ? 0 : Math.max(spec.bootCpus(), spec.cpus()),
                        spec.memoryMb(), spec.pidsLimit());
            } catch (IOException | RuntimeException e) {
                deleteTree(dir);
                deleteQuietly(recordFile(name));
                cgroups.remove(name);
                throw new BackendException("could not create local sandbox '" + name + "': " + e.getMessage(), e);
            }
            return name;
        }
    }

    /** Sandbox names become directory and file names: Dockyard's own names only. */
    static String checkedName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}") || name.contains("..")) {
            throw new BackendException("'" + name + "' is not a sandbox name");
        }
        return name;
    }

    /**
     * The key file (600, the sandbox user's; the executor deletes it once read) and the plugins to
     * start. Each is written whole and given to the sandbox user in the records' directory, root's
     * alone, then renamed into the sandbox's run directory as opened without following links (the
     * records and the sandboxes are on one file system, under the node's root): root writes and
     * chowns nothing through a path that the sandbox user, or a co-tenant of that user, could
     * have turned into a link. A link where a file goes is replaced, never followed.
     */
    private void handKey(String name, String sessionKey, List<String> plugins) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(KEY_FILE, sessionKey);
        if (!plugins.isEmpty()) {
            files.put(PLUGINS_FILE, String.join("\n", plugins));
        }
        List<Path> staged = new ArrayList<>();
        try (SecureDirectoryStream<Path> records = openDirectory(config.records());
             SecureDirectoryStream<Path> sandboxes = openDirectory(config.sandboxes());
             SecureDirectoryStream<Path> sandbox = sandboxes.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
             SecureDirectoryStream<Path> run = sandbox.newDirectoryStream(Path.of(KEY_DIR), LinkOption.NOFOLLOW_LINKS)) {
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path temporary = config.records().resolve(name + "." + file.getKey() + ".tmp");
                staged.add(temporary);
                Files.deleteIfExists(temporary);
                Files.writeString(temporary, file.getValue(), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString(
                        file.getKey().equals(KEY_FILE) ? "rw-------" : "r--------"));
                if (user.switched()) {
                    own(temporary);
                }
                records.move(temporary.getFileName(), run, Path.of(file.getKey()));
            }
        } finally {
            for (Path temporary : staged) {
                deleteQuietly(temporary);
            }
        }
    }

    /** {@code dir} opened for calls relative to it (openat, renameat), as Linux gives it. */
    private static SecureDirectoryStream<Path> openDirectory(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new IOException("this platform cannot open " + dir + " for calls relative to it");
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = record(name).orElseThrow(() -> gone(name));
            if (record.process() != null && processes.alive(record.process())) {
                return endpointOf(record.port());
            }
            int port = freePort();
            ProcessIdentity started = launch(name, port, record);
            writeRecord(record.running(started, port));
            return endpointOf(port);
        }
    }

    private ProcessIdentity launch(String name, int port, SandboxRecord record) {
        int memoryMb = record.memoryMb();
        Path dir = sandboxDir(name);
        List<String> command = new ArrayList<>();
        // joins its cgroups before anything else runs, so every process it starts is inside; the
        // umask a container has, not the server's (Liberty's 027)
        List<Path> cgroup = cgroups.paths(name);
        command.addAll(List.of("/bin/sh", "-c", JOIN_CGROUPS, "join-cgroups", Integer.toString(cgroup.size())));
        cgroup.forEach(c -> command.add(c.toString()));
        command.add("setsid");
        if (privateTmp) {
            // a mount namespace of its own whose /tmp is the sandbox's tmp: sandboxes share no /tmp
            // with each other or the host (root only may make one; mounts do not leave it)
            // and of pids, whose first process reaps orphans as a container's init does
            command.addAll(List.of("unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
                    "--propagation", "private", "/bin/sh", "-c", PRIVATE_TMP, dir.resolve("tmp").toString()));
            command.addAll(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--clear-groups",
                    "--no-new-privs", "/bin/bash", "-c", INIT, "dockyard-init"));
        } else if (user.switched()) {
            command.addAll(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--clear-groups",
                    "--no-new-privs"));
        }
        command.addAll(List.of("/bin/bash", startScript().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.resolve(WORKSPACE).toFile());
        Map<String, String> env = builder.environment();
        // nothing of the control plane's own environment (its keys, database settings) goes in
        env.clear();
        env.put("PATH", PATH);
        env.put("HOME", dir.resolve("home").toString());
        env.put("USER", user.name());
        env.put("LOGNAME", user.name());
        env.put("SHELL", "/bin/bash");
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", dir.resolve("tmp").toString());
        env.put("DOCKYARD_BUNDLE", config.bundle().toString());
        env.put("DOCKYARD_WORKSPACE", dir.resolve(WORKSPACE).toString());
        env.put("DOCKYARD_CONFIG_DIR", dir.resolve(KEY_DIR).toString());
        env.put("DOCKYARD_LIBERTY_OUTPUT", dir.resolve("liberty").toString());
        env.put("SESSION_API_KEY_FILE", dir.resolve(KEY_DIR).resolve(KEY_FILE).toString());
        env.put("EXECUTOR_PORT", Integer.toString(port));
        env.put("EXECUTOR_HOST", "127.0.0.1");
        env.put(SANDBOX_VARIABLE, name);
        // how the bundle's start script boots the executor, the same at every start (a revive too);
        // a record older than the choice was a sandbox of Liberty, then the only server
        env.put(ExecutorServer.VARIABLE, (record.executorServer() == null ? ExecutorServer.LIBERTY
                : record.executorServer()).apiName());
        if (memoryMb > 0) {
            // the JVM sizes its heap as in a container of the sandbox's memory (the cgroup's limit
            // is not what it reads on a host)
            env.put("DOCKYARD_JVM_OPTIONS", "-XX:MaxRAM=" + memoryMb + "m");
        }
        Path log = logFile(name);
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        try {
            Process process = builder.start();
            // the launch chain execs all the way to the JVM: this pid is the executor's, and its session's
            Optional<ProcessIdentity> identity = Optional.empty();
            for (int i = 0; i < 50 && identity.isEmpty() && process.isAlive(); i++) {
                identity = processes.identify(process.pid());
                if (identity.isEmpty()) {
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
            return identity.orElseThrow(() -> new BackendException("the executor of '" + name + "' exited at once: "
                    + tail(log)));
        } catch (IOException e) {
            throw new BackendException("could not start the executor of '" + name + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while starting '" + name + "'", e);
        }
    }

    private static URI endpointOf(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** A port nobody listens on now (the kernel's pick); the executor binds it a moment later. */
    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new BackendException("no free port on 127.0.0.1: " + e.getMessage(), e);
        }
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String sandboxUser, int executorPort) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            record(name).orElseThrow(() -> gone(name));
            try {
                // the executor deleted its key file when it first booted: it refuses to start without a new one
                handKey(name, sessionKey, List.of());
            } catch (IOException e) {
                throw new BackendException("could not hand the session key to '" + name + "': " + e.getMessage(), e);
            }
            return start(name, executorPort);
        }
    }

    /**
     * The port was free when the sandbox started, but any process of the host could bind it
     * before the executor did (or after it exited): every socket a connection to 127.0.0.1 there
     * may reach must be held by the sandbox's first process or one of its descendants (its pid
     * namespace, the executor, what its shell starts), never by a process that merely carries the
     * sandbox's variable. Once seen, the answer holds while those sockets and that process live.
     */
    @Override
    public boolean listensAt(String sandboxName, URI endpoint) {
        String name = checkedName(sandboxName);
        SandboxRecord record = record(name).orElseThrow(() -> gone(name));
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

    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        SandboxRecord record = record(checkedName(sandboxName)).orElseThrow(() -> gone(sandboxName));
        if (record.port() == 0) {
            throw new BackendException("local sandbox '" + sandboxName + "' was never started");
        }
        return endpointOf(record.port());
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        cgroups.cpus(checkedName(sandboxName), cpus);
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        return record(checkedName(sandboxName)).map(r -> new SandboxState(phase(r), null,
                phase(r) == SandboxState.Phase.EXITED ? tail(logFile(r.name())) : "")).orElse(SandboxState.missing());
    }

    private SandboxState.Phase phase(SandboxRecord record) {
        if (record.process() == null) {
            return record.port() == 0 ? SandboxState.Phase.CREATED : SandboxState.Phase.EXITED;
        }
        if (!processes.alive(record.process())) {
            return SandboxState.Phase.EXITED;
        }
        return record.frozen() ? SandboxState.Phase.PAUSED : SandboxState.Phase.RUNNING;
    }

    @Override
    public void pause(String sandboxName) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = record(name).orElseThrow(() -> gone(name));
            // what the agent stopped itself (a job it suspended) stays stopped after the resume
            List<Long> running = members(record).stream()
                    .filter(p -> !processes.stat(p).map(ProcStat::stopped).orElse(true)).toList();
            if (!record.frozen()) {
                stoppedByPause.put(name, running);
            }
            processes.signal("STOP", running);
            writeRecord(record.frozen(true));
        }
    }

    @Override
    public void unpause(String sandboxName) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = record(name).orElseThrow(() -> gone(name));
            thaw(record);
            writeRecord(record.frozen(false));
        }
    }

    @Override
    public void stop(String sandboxName) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            Optional<SandboxRecord> record = record(name);
            if (record.isEmpty()) {
                return;
            }
            terminate(record.get());
            writeRecord(record.get().stopped());
        }
    }

    /**
     * SIGCONT to every process of the sandbox until none is stopped: script(1), which holds the
     * executor's shell on its terminal, stops itself when it learns its child was stopped, and may
     * learn it only after the first SIGCONT; a stopped script would leave the shell's output unread.
     */
    private void thaw(SandboxRecord record) {
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
        pids.addAll(processes.carrying(SANDBOX_VARIABLE, record.name(), user.uid()));
        pids.addAll(cgroups.members(record.name()));
        pids.remove(ProcessHandle.current().pid());
        return List.copyOf(pids);
    }

    /** SIGTERM to every process of the sandbox (thawed), then SIGKILL to what is left after the grace. */
    private void terminate(SandboxRecord record) {
        List<Long> pids = members(record);
        if (pids.isEmpty()) {
            return;
        }
        processes.signal("TERM", pids);
        processes.signal("CONT", pids);
        long deadline = System.nanoTime() + config.stopGrace().toNanos();
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

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted", e);
        }
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        List<ManagedSandbox> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(config.records(), "*.properties")) {
            for (Path file : files) {
                Optional<SandboxRecord> read = readRecord(file);
                if (read.isEmpty()) {
                    LOG.warning("Local node '" + config.node() + "': " + file + " is not a sandbox record; left alone");
                    continue;
                }
                SandboxRecord r = read.get();
                Map<String, String> labels = r.labels();
                if ("true".equals(labels.get(Labels.MANAGED)) && controlPlane.equals(labels.get(Labels.CONTROL_PLANE))) {
                    found.add(new ManagedSandbox(r.name(), labels.get(Labels.RUNTIME_ID),
                            labels.get(Labels.CONVERSATION_ID), r.createdAt(), phase(r)));
                }
            }
        } catch (IOException e) {
            throw new BackendException("local node '" + config.node() + "': cannot list " + config.records() + ": "
                    + e.getMessage(), e);
        }
        return found;
    }

    /**
     * Archives as the sandbox user, never as root: the sandbox owns its directory and may have put
     * a link anywhere in it, which then leads tar only where that user could read anyway. A link
     * on the way to the archived directory is refused all the same (a control plane that is not
     * root runs its sandboxes as itself, and its own files are then that user's too). The
     * stream ends in an IOException when tar fails ({@link TarStream}).
     */
    @Override
    public InputStream archive(String sandboxName, String path) {
        String name = checkedName(sandboxName);
        record(name).orElseThrow(() -> gone(name));
        // "dir/." is the directory's contents (entries "./…"), as the engine's archive of it gives them
        boolean contents = path.endsWith("/.");
        Path target = hostPath(name, contents ? path.substring(0, path.length() - 2) : path);
        Path directory = contents ? target : target.getParent();
        refuseLinks(name, directory, path);
        List<String> command = new ArrayList<>(List.of("tar", "-C", directory.toString(), "-cf", "-"));
        if (config.archiveOwner() != null && config.archiveOwner().matches("[0-9]+")) {
            // the files are the local sandbox user's; a Docker sandbox's user must own them once moved there
            command.addAll(List.of("--numeric-owner", "--owner=" + config.archiveOwner(),
                    "--group=" + config.archiveOwner()));
        }
        command.add("--");
        command.add(contents ? "." : target.getFileName().toString());
        try {
            return TarStream.start(asSandbox(command));
        } catch (IOException e) {
            throw new BackendException("could not archive " + path + " of '" + name + "': " + e.getMessage(), e);
        }
    }

    /** Refuses {@code directory} unless each name from the sandbox's directory down to it is a directory, not a link. */
    private void refuseLinks(String name, Path directory, String path) {
        Path dir = sandboxDir(name);
        for (Path part : dir.relativize(directory)) {
            dir = dir.resolve(part);
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new BackendException("cannot archive " + path + " of local sandbox '" + name + "': "
                        + sandboxDir(name).relativize(dir) + " is not a directory (a link is never followed)");
            }
        }
    }

    /**
     * Unpacks as the sandbox user, owners not kept: every file of a local sandbox is its user's, and
     * an archive's links can lead nowhere that user could not write anyway.
     */
    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        String name = checkedName(sandboxName);
        record(name).orElseThrow(() -> gone(name));
        Path target = directory.equals("/") ? sandboxDir(name) : hostPath(name, directory);
        List<String> command = List.of("tar", "-C", target.toString(), "-xf", "-", "--no-same-owner",
                "--no-overwrite-dir");
        try {
            Process untar = asSandbox(command).redirectErrorStream(true).start();
            try (OutputStream in = untar.getOutputStream()) {
                tar.transferTo(in);
            }
            String output = new String(untar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!untar.waitFor(10, TimeUnit.MINUTES) || untar.exitValue() != 0) {
                throw new BackendException("unpacking into " + directory + " of '" + name + "' failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new BackendException("could not unpack into " + directory + " of '" + name + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted", e);
        }
    }

    /** Where a path of the executor's view ({@code /workspace...}) is on the host; nothing else is reachable. */
    private Path hostPath(String name, String path) {
        Path normal = Path.of(path).normalize();
        Path workspace = Path.of(CONTAINER_WORKSPACE);
        if (!normal.startsWith(workspace)) {
            throw new BackendException("local sandboxes have only " + CONTAINER_WORKSPACE + " to archive, not " + path);
        }
        return sandboxDir(name).resolve(WORKSPACE).resolve(workspace.relativize(normal).toString()).normalize();
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String sandboxUser) {
        throw new BackendException("local node '" + config.node() + "' runs no image's own program");
    }

    @Override
    public void remove(String sandboxName) {
        String name = checkedName(sandboxName);
        synchronized (lock(name)) {
            Optional<SandboxRecord> record = record(name);
            record.ifPresent(this::terminate);
            if (record.isEmpty()) {
                // no record (a create that broke off): the variable still finds what it may have started
                terminate(new SandboxRecord(name, Map.of(), 0, Instant.EPOCH, null, false, 0));
            }
            cgroups.remove(name);
            deleteTree(sandboxDir(name));
            deleteQuietly(logFile(name));
            deleteQuietly(recordFile(name));
        }
        locks.remove(name);
        stoppedByPause.remove(name);
        listeners.remove(name);
    }

    Path sandboxDir(String name) {
        return config.sandboxes().resolve(name);
    }

    private Path recordFile(String name) {
        return config.records().resolve(name + ".properties");
    }

    private Path logFile(String name) {
        return config.records().resolve(name + ".log");
    }

    Optional<SandboxRecord> record(String name) {
        return readRecord(recordFile(name));
    }

    private static Optional<SandboxRecord> readRecord(Path file) {
        try {
            return SandboxRecord.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new BackendException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Written whole to a temporary file, then moved over: a reader never sees half a record. */
    private void writeRecord(SandboxRecord record) {
        Path file = recordFile(record.name());
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(temporary, record.format(), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void chown(Path path) throws IOException {
        if (!user.switched()) {
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                own(dir);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                own(file);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private void own(Path path) throws IOException {
        Files.setAttribute(path, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", user.gid(), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Deletes a tree without following its links (a sandbox's links may point anywhere). Each
     * directory is opened relative to its parent's open descriptor and never through a link, and
     * each name removed relative to it: a co-tenant of the sandbox user that swaps a directory of
     * the tree for a link while it is being deleted makes the deletion fail, never reach outside.
     */
    static void deleteTree(Path root) {
        Path absolute = root.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (SecureDirectoryStream<Path> parent = openDirectory(absolute.getParent())) {
            deleteEntry(parent, absolute);
        } catch (IOException e) {
            throw new BackendException("could not remove " + root + ": " + e.getMessage(), e);
        }
    }

    /** Deletes {@code entry} (its name relative to {@code parent}, its whole path for messages). */
    private static void deleteEntry(SecureDirectoryStream<Path> parent, Path entry) throws IOException {
        Path name = entry.getFileName();
        BasicFileAttributes attributes;
        try {
            attributes = parent.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return;
        }
        if (!attributes.isDirectory()) {
            parent.deleteFile(name);
            return;
        }
        try (SecureDirectoryStream<Path> dir = openEntry(parent, entry)) {
            List<Path> entries = new ArrayList<>();
            dir.forEach(entries::add);
            for (Path child : entries) {
                deleteEntry(dir, child);
            }
        }
        try {
            parent.deleteDirectory(name);
        } catch (NoSuchFileException e) {
            // gone meanwhile
        }
    }

    /** The directory {@code entry} of {@code parent}, never through a link. */
    private static SecureDirectoryStream<Path> openEntry(SecureDirectoryStream<Path> parent, Path entry)
            throws IOException {
        try {
            return parent.newDirectoryStream(entry.getFileName(), LinkOption.NOFOLLOW_LINKS);
        } catch (AccessDeniedException e) {
            // a directory the sandbox made unreadable to its owner is still that owner's to empty.
            // Only a control plane that is not root is refused (root reads any directory), and its
            // sandboxes run as itself: a link swapped in here leads only to what they own alike
            Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rwx------"));
            return parent.newDirectoryStream(entry.getFileName(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete " + file, e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private static BackendException gone(String name) {
        return new BackendException("local sandbox '" + name + "' is gone");
    }

    private record Listener(ProcessIdentity executor, Set<Long> sockets) {
    }
}
