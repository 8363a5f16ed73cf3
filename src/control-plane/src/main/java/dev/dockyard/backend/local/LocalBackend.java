package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Sandboxes as host processes of this machine (see the package comment for the model): the
 * {@link RuntimeBackend} of a local node, which checks each call and keeps each sandbox's record
 * in step with what it did. Its parts do the work: {@link SandboxFiles} (each sandbox's directory
 * and record, the session key handed in), {@link ExecutorLauncher} (the executor's start),
 * {@link SandboxProcesses} (finding and signalling a sandbox's processes) and
 * {@link SandboxArchives} (its workspace as a tar). Calls on one sandbox are serialised by a lock
 * per name; the record on disk, not memory, is the truth, so a control plane restarted after
 * {@code kill -9} finds its sandboxes again.
 */
public class LocalBackend implements RuntimeBackend {

    /** What {@link #name()} answers: a local node's type. */
    public static final String NAME = "local";

    private static final Logger LOG = Logger.getLogger(LocalBackend.class.getName());

    /** The variable every process of a sandbox inherits: how its processes are found. */
    public static final String SANDBOX_VARIABLE = "DOCKYARD_SANDBOX";

    private final LocalNodeConfig config;
    private final SandboxUser user;
    private final CgroupLimits cgroups;
    private final Clock clock;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** Whether sandboxes get a /tmp of their own (a mount namespace: root, and a host that allows it). */
    private final boolean privateTmp;
    private final SandboxFiles files;
    private final ExecutorLauncher launcher;
    private final SandboxProcesses running;
    private final SandboxArchives archives;
    /** Whether the sandbox user was seen to reach the bundle and the sandboxes' directory. */
    private volatile boolean reachable;

    public LocalBackend(LocalNodeConfig config, SandboxUser user, ProcessTable processes, CgroupLimits cgroups,
                        Clock clock) {
        this.config = config;
        this.user = user;
        this.cgroups = cgroups;
        this.clock = clock;
        this.privateTmp = user.switched() && ExecutorLauncher.canUnshareMounts();
        if (user.switched() && !privateTmp) {
            LOG.warning("Local node '" + config.node() + "': no mount namespaces here (unshare --mount failed); "
                    + "its sandboxes share the host's /tmp");
        }
        this.files = new SandboxFiles(config, user);
        this.launcher = new ExecutorLauncher(config, user, processes, cgroups, files, privateTmp);
        this.running = new SandboxProcesses(user, processes, cgroups, config.stopGrace());
        this.archives = new SandboxArchives(config, user, files);
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
        Path startScript = launcher.startScript();
        if (!Files.isExecutable(startScript)) {
            throw new BackendException("local node '" + config.node() + "': no executor bundle at " + config.bundle()
                    + " (bin/start-executor missing)");
        }
        if (!Files.isWritable(config.records())) {
            throw new BackendException("local node '" + config.node() + "': " + config.records() + " is not writable");
        }
        if (user.switched() && !reachable) {
            // a directory on the way that the sandbox user may not pass (a 700 home, a 027 umask)
            reachable = asSandboxUser(List.of("test", "-x", startScript.toString())) == 0
                    && asSandboxUser(List.of("test", "-x", config.sandboxes().toString())) == 0;
            if (!reachable) {
                throw new BackendException("local node '" + config.node() + "': user " + user.name() + " cannot reach "
                        + startScript + " or " + config.sandboxes() + " (a directory on the way is closed to others)");
            }
        }
    }

    /** Whether this node's sandboxes have a /tmp of their own. */
    public boolean privateTmp() {
        return privateTmp;
    }

    private int asSandboxUser(List<String> command) {
        try {
            Process p = user.command(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(10, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (IOException e) {
            throw new BackendException("could not run setpriv: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
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
        String name = SandboxFiles.checkedName(spec.name());
        synchronized (lock(name)) {
            if (Files.exists(files.recordFile(name)) || Files.exists(files.sandboxDir(name))) {
                throw new BackendException("a local sandbox named '" + name + "' already exists");
            }
            try {
                files.layOut(name, spec.sessionKey(), spec.plugins());
                Map<String, String> labels = new LinkedHashMap<>(spec.labels());
                files.writeRecord(new SandboxRecord(name, labels, 0, clock.instant(), null, false, spec.memoryMb(),
                        spec.executorServer()));
                // the boot may use more CPU than the steady limit settle() applies (SandboxSpec.bootCpus)
                cgroups.prepare(name, spec.bootCpus() == 0 ? 0 : Math.max(spec.bootCpus(), spec.cpus()),
                        spec.memoryMb(), spec.pidsLimit());
            } catch (IOException | RuntimeException e) {
                SafeTree.deleteTree(files.sandboxDir(name));
                SafeTree.deleteQuietly(files.recordFile(name));
                cgroups.remove(name);
                throw new BackendException("could not create local sandbox '" + name + "': " + e.getMessage(), e);
            }
            return name;
        }
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = files.record(name).orElseThrow(() -> gone(name));
            if (record.process() != null && running.alive(record.process())) {
                return endpointOf(record.port());
            }
            int port = ExecutorLauncher.freePort();
            ProcessIdentity started = launcher.launch(name, port, record);
            files.writeRecord(record.running(started, port));
            return endpointOf(port);
        }
    }

    private static URI endpointOf(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String sandboxUser, int executorPort) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            files.record(name).orElseThrow(() -> gone(name));
            try {
                // the executor deleted its key file when it first booted: it refuses to start without a new one
                files.handKey(name, sessionKey, List.of());
            } catch (IOException e) {
                throw new BackendException("could not hand the session key to '" + name + "': " + e.getMessage(), e);
            }
            return start(name, executorPort);
        }
    }

    /** Only when every socket on the sandbox's port is its own ({@link SandboxProcesses#listensAt}). */
    @Override
    public boolean listensAt(String sandboxName, URI endpoint) {
        String name = SandboxFiles.checkedName(sandboxName);
        SandboxRecord record = files.record(name).orElseThrow(() -> gone(name));
        return running.listensAt(name, record, endpoint);
    }

    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        SandboxRecord record = files.record(SandboxFiles.checkedName(sandboxName)).orElseThrow(() -> gone(sandboxName));
        if (record.port() == 0) {
            throw new BackendException("local sandbox '" + sandboxName + "' was never started");
        }
        return endpointOf(record.port());
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        cgroups.cpus(SandboxFiles.checkedName(sandboxName), cpus);
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        return files.record(SandboxFiles.checkedName(sandboxName)).map(r -> new SandboxState(phase(r), null,
                phase(r) == SandboxState.Phase.EXITED ? files.logTail(r.name()) : "")).orElse(SandboxState.missing());
    }

    private SandboxState.Phase phase(SandboxRecord record) {
        if (record.process() == null) {
            return record.port() == 0 ? SandboxState.Phase.CREATED : SandboxState.Phase.EXITED;
        }
        if (!running.alive(record.process())) {
            return SandboxState.Phase.EXITED;
        }
        return record.frozen() ? SandboxState.Phase.PAUSED : SandboxState.Phase.RUNNING;
    }

    @Override
    public void pause(String sandboxName) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = files.record(name).orElseThrow(() -> gone(name));
            running.freeze(name, record);
            files.writeRecord(record.frozen(true));
        }
    }

    @Override
    public void unpause(String sandboxName) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            SandboxRecord record = files.record(name).orElseThrow(() -> gone(name));
            running.thaw(record);
            files.writeRecord(record.frozen(false));
        }
    }

    @Override
    public void stop(String sandboxName) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            Optional<SandboxRecord> record = files.record(name);
            if (record.isEmpty()) {
                return;
            }
            running.terminate(record.get());
            files.writeRecord(record.get().stopped());
        }
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        List<ManagedSandbox> found = new ArrayList<>();
        try (DirectoryStream<Path> records = Files.newDirectoryStream(config.records(), "*.properties")) {
            for (Path file : records) {
                Optional<SandboxRecord> read = SandboxFiles.readRecord(file);
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

    /** As the sandbox user, never through a link on the way ({@link SandboxArchives#archive}). */
    @Override
    public InputStream archive(String sandboxName, String path) {
        String name = SandboxFiles.checkedName(sandboxName);
        files.record(name).orElseThrow(() -> gone(name));
        return archives.archive(name, path);
    }

    /** As the sandbox user, owners not kept ({@link SandboxArchives#restore}). */
    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        String name = SandboxFiles.checkedName(sandboxName);
        files.record(name).orElseThrow(() -> gone(name));
        archives.restore(name, directory, tar);
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String sandboxUser) {
        throw new BackendException("local node '" + config.node() + "' runs no image's own program");
    }

    @Override
    public void remove(String sandboxName) {
        String name = SandboxFiles.checkedName(sandboxName);
        synchronized (lock(name)) {
            Optional<SandboxRecord> record = files.record(name);
            record.ifPresent(running::terminate);
            if (record.isEmpty()) {
                // no record (a create that broke off): the variable still finds what it may have started
                running.terminate(new SandboxRecord(name, Map.of(), 0, Instant.EPOCH, null, false, 0));
            }
            cgroups.remove(name);
            SafeTree.deleteTree(files.sandboxDir(name));
            SafeTree.deleteQuietly(files.logFile(name));
            SafeTree.deleteQuietly(files.recordFile(name));
        }
        locks.remove(name);
        running.forget(name);
    }

    /** The sandbox's directory on the host (its workspace is {@code workspace} in it). */
    Path sandboxDir(String name) {
        return files.sandboxDir(name);
    }

    private static BackendException gone(String name) {
        return new BackendException("local sandbox '" + name + "' is gone");
    }
}
