package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.InternalServerErrorException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.ContainerConfig;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.RestartPolicy;
import com.github.dockerjava.api.model.Volume;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.backend.SnapshotCapture;
import dev.dockyard.backend.WorkspaceVolume;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Sandboxes as Docker containers: labelled, hardened (all capabilities dropped, no new
 * privileges, a pids limit, CPU and memory limits, an init process), the executor port published
 * on 127.0.0.1 only at a port Docker picks. The executor's {@code /workspace} is a labelled volume
 * of its own ({@link WorkspaceVolumes}: size-bounded where this host allows), created with the
 * sandbox and removed with it unless it is kept. Its egress policy's network and packet-filter
 * rules ({@link SandboxNetworks}) are made before it and go with it; {@link SandboxConfinement}
 * adds the node's confinement: a read-only root, the open-file limit, the runtime class, GPUs and
 * extra networks.
 */
public class DockerBackend implements RuntimeBackend {

    private static final Logger LOG = Logger.getLogger(DockerBackend.class.getName());

    /** Where the executor image expects its session key (see SESSION_API_KEY_FILE in the image). */
    static final String KEY_DIR = "/opt/dockyard/run";
    static final String KEY_FILE = "session-key";
    static final String PLUGINS_FILE = "plugins";
    static final String WILDCARD_HOST = "unspecified-address:0.0.0.0";
    /** How long a stopped sandbox's executor may take to shut down before it is killed (its files are kept either way). */
    static final int STOP_SECONDS = 2;
    /** The engine's default CPU weight (cpu.shares), which every sandbox in use has. */
    static final int NORMAL_CPU_SHARES = 1024;
    /** The lowest weight the engine takes: a background boot runs on what others leave. */
    static final int BACKGROUND_CPU_SHARES = 2;

    /** The egress helper image docker/build-egress-helper-image.sh builds (MP Config's default). */
    public static final String DEFAULT_EGRESS_HELPER = "dockyard/egress-helper:latest";

    private final DockerClient docker;
    private final WorkspaceVolumes workspaces;
    private final SandboxNetworks networks;
    private final HomeVolumes homes;
    private final SandboxHostSettings settings;

    /** One backend per engine: see {@link DockerNodeFactory}. Workspaces on plain (unbounded) volumes. */
    public DockerBackend(DockerClient docker) {
        this(docker, new WorkspaceVolumes(docker, null, 0, Clock.systemUTC()), SandboxHostSettings.ENGINE_DEFAULTS);
    }

    DockerBackend(DockerClient docker, WorkspaceVolumes workspaces) {
        this(docker, workspaces, SandboxHostSettings.ENGINE_DEFAULTS, DEFAULT_EGRESS_HELPER);
    }

    DockerBackend(DockerClient docker, WorkspaceVolumes workspaces, String egressHelperImage) {
        this(docker, workspaces, SandboxHostSettings.ENGINE_DEFAULTS, egressHelperImage);
    }

    DockerBackend(DockerClient docker, WorkspaceVolumes workspaces, SandboxHostSettings settings) {
        this(docker, workspaces, settings, DEFAULT_EGRESS_HELPER);
    }

    /**
     * {@code settings}: how this node confines sandboxes; {@code egressHelperImage}: what installs the
     * packet-filter rules of egress policies ({@link SandboxNetworks}).
     */
    DockerBackend(DockerClient docker, WorkspaceVolumes workspaces, SandboxHostSettings settings,
                  String egressHelperImage) {
        this.docker = docker;
        this.workspaces = workspaces;
        this.settings = settings;
        this.networks = new SandboxNetworks(docker, new EgressHelper(docker, egressHelperImage));
        this.homes = new HomeVolumes(docker, settings.homeDiskMb() > 0 ? workspaces.disks() : null,
                settings.homeDiskMb(), Clock.systemUTC());
    }

    @Override
    public void ping() {
        docker.pingCmd().exec();
    }

    @Override
    public String name() {
        return "docker";
    }

    @Override
    public String create(SandboxSpec spec) {
        List<ExposedPort> exposed = new ArrayList<>();
        exposed.add(ExposedPort.tcp(spec.executorPort()));
        spec.servicePorts().stream().filter(p -> p != spec.executorPort()).distinct()
                .forEach(p -> exposed.add(ExposedPort.tcp(p)));
        long memoryBytes = spec.memoryMb() * 1024L * 1024L;
        HostConfig host = HostConfig.newHostConfig()
                .withPortBindings(exposed.stream()
                        .map(p -> new PortBinding(Ports.Binding.bindIp("127.0.0.1"), p)).toList())
                .withNanoCPUs(nanoCpus(spec.bootCpus() == 0 ? 0 : Math.max(spec.bootCpus(), spec.cpus())))
                .withCpuShares(spec.background() ? BACKGROUND_CPU_SHARES : NORMAL_CPU_SHARES)
                .withMemory(memoryBytes)
                .withMemorySwap(memoryBytes)
                .withPidsLimit(spec.pidsLimit())
                .withInit(true)
                // Liberty names its wildcard address once it listens (a reverse lookup of 0.0.0.0):
                // answered from /etc/hosts, not DNS, which costs 10 s of boot where DNS is unreachable
                .withExtraHosts(WILDCARD_HOST)
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges"))
                .withRestartPolicy(RestartPolicy.noRestart());
        SandboxProcess process = spec.process();
        if (process != null && process.fsGroup() != null) {
            host.withGroupAdd(List.of(String.valueOf(process.fsGroup())));
        }
        // the executor's workspace on a volume of its own; an image's own process keeps its image's files
        String ownVolume = process == null ? createWorkspace(spec) : null;
        String volume = ownVolume != null ? ownVolume
                : process == null ? spec.workspace().volume() : null;
        if (volume != null) {
            host.withBinds(new Bind(volume, new Volume(WorkspaceVolumes.MOUNTED_AT)));
        }
        // the egress policy's own network and rules exist before the container can send a packet
        String network;
        try {
            network = networks.attach(spec, host);
        } catch (RuntimeException e) {
            removeWorkspaceQuietly(ownVolume);
            throw e;
        }
        if (SandboxConfinement.readOnlyRoot(spec, settings)) {
            try {
                homes.create(spec);
            } catch (RuntimeException e) {
                removeWorkspaceQuietly(ownVolume);
                removeNetworkQuietly(network, spec.name());
                throw e;
            }
        }
        String id;
        try {
            CreateContainerCmd create = docker.createContainerCmd(spec.image())
                    .withName(spec.name())
                    .withLabels(spec.labels())
                    .withExposedPorts(exposed)
                    .withHostConfig(host);
            if (spec.user() != null) {
                create.withUser(spec.user());
            }
            if (process != null) {
                ProcessLaunch.configure(create, process, imageCommand(spec.image(), process));
            } else {
                chooseExecutorServer(create, spec);
            }
            SandboxConfinement.apply(create, host, spec, settings);
            id = create.exec().getId();
        } catch (NotFoundException e) {
            removeWorkspaceQuietly(ownVolume);
            removeNetworkQuietly(network, spec.name());
            removeHomeQuietly(spec.name());
            throw new BackendException("image '" + spec.image() + "' not found", e);
        } catch (ConflictException e) {
            // the name belongs to another sandbox: so may the volume (and network) named after it
            throw new BackendException("a container named '" + spec.name() + "' already exists", e);
        } catch (DockerException | IllegalArgumentException e) {
            removeWorkspaceQuietly(ownVolume);
            removeNetworkQuietly(network, spec.name());
            removeHomeQuietly(spec.name());
            throw new BackendException("Docker refused to create the container: " + describe(e), e);
        }
        SandboxConfinement.attachNetworks(docker, id, spec);
        if (process == null) {
            handKey(id, keyArchive(spec.sessionKey(), spec.plugins(), spec.user()));
        } else {
            copyIn(id, "/", ProcessLaunch.environmentArchive(process.environment(), spec.user()),
                    "could not hand the environment to the container");
        }
        return id;
    }

    /**
     * Creates the sandbox's own workspace volume (fresh, or a copy of a snapshot's); returns it, or
     * null when the sandbox mounts a kept one (attached here, should the host have rebooted).
     */
    private String createWorkspace(SandboxSpec spec) {
        SandboxWorkspace workspace = spec.workspace() == null ? SandboxWorkspace.fresh(0) : spec.workspace();
        if (workspace.kind() == SandboxWorkspace.Kind.MOUNT) {
            workspaces.ensureAttached(workspace.volume());
            return null;
        }
        String volume = SandboxWorkspace.ownVolume(spec.name());
        Map<String, String> labels = spec.labels();
        if (workspace.kind() == SandboxWorkspace.Kind.COPY) {
            workspaces.copy(workspace.volume(), volume, spec.image(), labels, false);
        } else {
            workspaces.create(volume, workspace.diskMb(), spec.user() == null ? "0" : spec.user(), labels);
        }
        return volume;
    }

    private void removeWorkspaceQuietly(String volume) {
        if (volume == null) {
            return;
        }
        try {
            workspaces.remove(volume);
        } catch (RuntimeException e) {
            // the reconciler's sweep removes an unused labelled volume later
            LOG.warning("Could not remove workspace volume " + volume + ": " + e.getMessage());
        }
    }

    /** Removes the sandbox's home volume (a read-only root's, see {@link SandboxConfinement}), if it has one. */
    private void removeHomeQuietly(String sandboxName) {
        try {
            homes.remove(sandboxName);
        } catch (NotFoundException e) {
            // none: a writable root, or gone already
        } catch (DockerException e) {
            // still in use (a removal in progress) or the engine failing: the volume is named after the sandbox
            LOG.warning("Could not remove home volume of " + sandboxName + ": " + describe(e));
        }
    }

    private void removeNetworkQuietly(String network, String sandboxName) {
        if (network == null) {
            return;
        }
        try {
            networks.remove(sandboxName);
        } catch (RuntimeException e) {
            // the reconciler's sweep removes an unused sandbox network later
            LOG.warning("Could not remove network " + network + ": " + e.getMessage());
        }
    }

    /** The image's own entrypoint and command, for a process that gave none. */
    private List<String> imageCommand(String image, SandboxProcess process) {
        if (!process.command().isEmpty()) {
            return process.command();
        }
        try {
            ContainerConfig config = docker.inspectImageCmd(image).exec().getConfig();
            List<String> command = new ArrayList<>();
            if (config != null && config.getEntrypoint() != null) {
                command.addAll(List.of(config.getEntrypoint()));
            }
            if (config != null && config.getCmd() != null) {
                command.addAll(List.of(config.getCmd()));
            }
            if (command.isEmpty()) {
                throw new BackendException("image '" + image + "' has no entrypoint or command, and none was given");
            }
            return command;
        } catch (NotFoundException e) {
            throw new BackendException("image '" + image + "' not found", e);
        }
    }

    private void copyIn(String container, String path, byte[] archive, String what) {
        try {
            docker.copyArchiveToContainerCmd(container).withTarInputStream(new ByteArrayInputStream(archive))
                    .withRemotePath(path).exec();
        } catch (DockerException e) {
            throw new BackendException(what + ": " + describe(e), e);
        }
    }

    /** Copies the key (and plugins) file into the sandbox, where its executor reads it at boot. */
    private void handKey(String container, byte[] archive) {
        try {
            docker.copyArchiveToContainerCmd(container)
                    .withTarInputStream(new ByteArrayInputStream(archive))
                    .withRemotePath(KEY_DIR)
                    .exec();
        } catch (NotFoundException e) {
            throw new BackendException("the image has no " + KEY_DIR + " for the session key: is it a Dockyard "
                    + "sandbox image?", e);
        } catch (DockerException e) {
            throw new BackendException("could not hand the session key to the container: " + describe(e), e);
        }
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        copyIn(sandboxName, "/", ProcessLaunch.environmentArchive(environment, user),
                "could not rewrite the environment file");
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        // after a host reboot a bounded workspace's disk is attached again before its mount is needed
        workspaces.ensureAttached(workspaceVolume(sandboxName));
        if (homeVolume(sandboxName) != null) {
            homes.ensureAttached(sandboxName);
        }
        // a rebooted host lost its packet-filter rules: the sandbox sends nothing before they are back
        networks.reapply(sandboxName);
        if (!runsProcess(sandboxName)) {
            // the executor deleted its key file when it first booted: it refuses to start without a new one
            handKey(sandboxName, keyArchive(sessionKey, List.of(), user));
        }
        return start(sandboxName, executorPort);
    }

    private boolean runsProcess(String sandboxName) {
        try {
            Map<String, String> labels = docker.inspectContainerCmd(sandboxName).exec().getConfig().getLabels();
            return labels != null && "true".equals(labels.get(Labels.PROCESS));
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        }
    }

    /**
     * An executor sandbox's one variable: how the image's start script boots the executor
     * ({@link ExecutorServer}). No secret, so {@code docker inspect} may show it; a revived (restarted)
     * container keeps it, and with it its way of starting.
     */
    static void chooseExecutorServer(CreateContainerCmd create, SandboxSpec spec) {
        if (spec.executorServer() != null) {
            create.withEnv(ExecutorServer.VARIABLE + "=" + spec.executorServer().apiName());
        }
    }

    /**
     * The key file, readable only by the sandbox user (the executor reads it once and deletes it),
     * and the plugins to start, one name a line (no file when there are none).
     */
    private static byte[] keyArchive(String sessionKey, List<String> plugins, String user) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            add(tar, KEY_FILE, sessionKey.getBytes(StandardCharsets.UTF_8), 0100400, user);
            if (!plugins.isEmpty()) {
                add(tar, PLUGINS_FILE, String.join("\n", plugins).getBytes(StandardCharsets.UTF_8), 0100400, user);
            }
        } catch (IOException e) {
            throw new IllegalStateException("building an in-memory tar", e);
        }
        return out.toByteArray();
    }

    private static void add(TarArchiveOutputStream tar, String name, byte[] content, int mode, String user)
            throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(content.length);
        entry.setMode(mode);
        numericUser(user, entry);
        tar.putArchiveEntry(entry);
        tar.write(content);
        tar.closeArchiveEntry();
    }

    private static void numericUser(String user, TarArchiveEntry entry) {
        String[] parts = user.split(":");
        try {
            long uid = Long.parseLong(parts[0]);
            long gid = parts.length > 1 ? Long.parseLong(parts[1]) : uid;
            entry.setUserId(uid);
            entry.setGroupId(gid);
        } catch (NumberFormatException e) {
            entry.setUserName(parts[0]);
        }
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        try {
            docker.startContainerCmd(sandboxName).exec();
        } catch (NotModifiedException e) {
            // already running: starting is idempotent
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' disappeared before it started", e);
        } catch (DockerException e) {
            String why = describe(e);
            if (why.contains("error setting rlimit")) {
                why += " (the engine's own limits are lower than the sandbox's: dockyard.sandbox.nofile must be at "
                        + "most the engine's open-file limit)";
            }
            throw new BackendException("Docker could not start the container: " + why, e);
        }
        InspectContainerResponse inspect = docker.inspectContainerCmd(sandboxName).exec();
        if (!Boolean.TRUE.equals(inspect.getState().getRunning())) {
            // it died at once: say how, with its own last words
            SandboxState state = inspect(sandboxName);
            throw new BackendException("the container exited with code " + state.exitCode() + " right after it started"
                    + (state.logTail().isBlank() ? "" : "; its last output:\n" + state.logTail()));
        }
        return publishedEndpoint(inspect, executorPort);
    }

    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        try {
            return publishedEndpoint(docker.inspectContainerCmd(sandboxName).exec(), executorPort);
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not inspect the container: " + describe(e), e);
        }
    }

    private static URI publishedEndpoint(InspectContainerResponse inspect, int executorPort) {
        Ports.Binding[] bindings = inspect.getNetworkSettings().getPorts().getBindings()
                .get(ExposedPort.tcp(executorPort));
        if (bindings == null || bindings.length == 0 || bindings[0].getHostPortSpec() == null) {
            throw new BackendException("Docker published no host port for the executor (container state: "
                    + inspect.getState().getStatus() + ")");
        }
        return URI.create("http://127.0.0.1:" + bindings[0].getHostPortSpec());
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        try {
            docker.updateContainerCmd(sandboxName).withNanoCPUs(nanoCpus(cpus)).withCpuShares(NORMAL_CPU_SHARES)
                    .exec();
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' disappeared", e);
        } catch (DockerException e) {
            if (SandboxConfinement.DOCKER_RUNTIMES.get(SandboxIsolation.GVISOR).equals(runtimeOf(sandboxName))) {
                // gVisor has no live update: its sandboxes were given their steady limits at create
                return;
            }
            throw new BackendException("Docker could not apply the CPU limit: " + describe(e), e);
        }
    }

    private String runtimeOf(String sandboxName) {
        try {
            HostConfig host = docker.inspectContainerCmd(sandboxName).exec().getHostConfig();
            return host == null ? null : host.getRuntime();
        } catch (DockerException e) {
            return null;
        }
    }

    private static long nanoCpus(double cpus) {
        return (long) (cpus * 1_000_000_000L);
    }

    @Override
    public void pause(String sandboxName) {
        try {
            freezing(() -> docker.pauseContainerCmd(sandboxName).exec(), FREEZE_TRIES, FREEZE_BACKOFF_MS);
        } catch (ConflictException | NotModifiedException e) {
            // already paused
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not pause the container: " + describe(e), e);
        }
    }

    /** How often a pause is tried when the kernel could not freeze the container's processes in time. */
    static final int FREEZE_TRIES = 5;
    /** The wait before the n-th try again is n times this (0.5 + 1 + 1.5 + 2 s at most in all). */
    static final long FREEZE_BACKOFF_MS = 500;

    /**
     * Runs {@code pause}, again when the engine answers that it was "unable to freeze": runc gives a
     * freeze a short time and thaws the container when its processes do not all stop within it
     * (processes in I/O, a machine under load), which a moment later usually succeeds. Any other
     * failure, or the last try's, is the caller's.
     */
    static void freezing(Runnable pause, int tries, long backoffMs) {
        for (int attempt = 1; ; attempt++) {
            try {
                pause.run();
                return;
            } catch (InternalServerErrorException e) {
                if (attempt >= tries || !describe(e).contains("unable to freeze")) {
                    throw e;
                }
                LOG.info("The container could not be frozen in time (try " + attempt + " of " + tries
                        + "); trying again");
                try {
                    Thread.sleep(backoffMs * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    @Override
    public void unpause(String sandboxName) {
        try {
            docker.unpauseContainerCmd(sandboxName).exec();
        } catch (ConflictException | NotModifiedException e) {
            // not paused
        } catch (InternalServerErrorException e) {
            // Docker answers 500 "… is not paused" for a running container: thawed is what was asked
            if (!describe(e).contains("is not paused")) {
                throw new BackendException("Docker could not resume the container: " + describe(e), e);
            }
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not resume the container: " + describe(e), e);
        }
    }

    @Override
    public void stop(String sandboxName) {
        // a frozen container cannot take the stop signal: thawed for the last second of its life
        unpause(sandboxName);
        try {
            docker.stopContainerCmd(sandboxName).withTimeout(STOP_SECONDS).exec();
        } catch (NotModifiedException e) {
            // stopped already
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not stop the container: " + describe(e), e);
        }
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        InspectContainerResponse inspect;
        try {
            inspect = docker.inspectContainerCmd(sandboxName).exec();
        } catch (NotFoundException e) {
            return SandboxState.missing();
        }
        InspectContainerResponse.ContainerState state = inspect.getState();
        if (Boolean.TRUE.equals(state.getPaused())) {
            return new SandboxState(SandboxState.Phase.PAUSED, null, "");
        }
        if (Boolean.TRUE.equals(state.getRunning())) {
            return new SandboxState(SandboxState.Phase.RUNNING, null, "");
        }
        if ("created".equals(state.getStatus())) {
            return new SandboxState(SandboxState.Phase.CREATED, null, "");
        }
        Long exit = state.getExitCodeLong();
        return new SandboxState(SandboxState.Phase.EXITED, exit == null ? null : exit.intValue(), logTail(sandboxName));
    }

    private String logTail(String sandboxName) {
        LogCollector logs = new LogCollector();
        try {
            docker.logContainerCmd(sandboxName).withStdOut(true).withStdErr(true).withTail(20).exec(logs)
                    .awaitCompletion(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (DockerException e) {
            return "";
        }
        return logs.text();
    }

    @Override
    public void remove(String sandboxName) {
        removeContainer(sandboxName);
        // named volumes outlive their container: its own ones go explicitly (a mounted kept one stays)
        removeWorkspaceQuietly(SandboxWorkspace.ownVolume(sandboxName));
        removeHomeQuietly(sandboxName);
        networks.remove(sandboxName);
    }

    @Override
    public int sweepNetworks(String controlPlane, Instant cutoff) {
        return networks.sweep(controlPlane, cutoff);
    }

    @Override
    public int sweepHomes(String controlPlane, Instant cutoff) {
        return homes.sweep(controlPlane, cutoff);
    }

    /** The packet-filter rules the engine's host has for the sandbox's own network ({@code iptables -S}). */
    public String egressRules(String sandboxName) {
        return networks.listRules(sandboxName);
    }

    private void removeContainer(String sandboxName) {
        try {
            docker.removeContainerCmd(sandboxName).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException | NotModifiedException e) {
            // already gone
        } catch (ConflictException e) {
            // removal already in progress: Docker finishes it
        } catch (DockerException e) {
            throw new BackendException("Docker could not remove container '" + sandboxName + "': " + describe(e), e);
        }
    }

    @Override
    public String workspaceVolume(String sandboxName) {
        try {
            InspectContainerResponse inspect = docker.inspectContainerCmd(sandboxName).exec();
            if (inspect.getMounts() == null) {
                return null;
            }
            return inspect.getMounts().stream()
                    .filter(m -> m.getDestination() != null && WorkspaceVolumes.MOUNTED_AT.equals(m.getDestination().getPath()))
                    .map(InspectContainerResponse.Mount::getName).filter(n -> n != null).findFirst().orElse(null);
        } catch (NotFoundException e) {
            return null;
        }
    }

    @Override
    public String keepWorkspace(String sandboxName, String keptVolume, Map<String, String> labels) {
        String volume = workspaceVolume(sandboxName);
        String image = null;
        try {
            image = docker.inspectContainerCmd(sandboxName).exec().getImageId();
        } catch (NotFoundException e) {
            // gone already: its own volume may still be there
            volume = SandboxWorkspace.ownVolume(sandboxName);
        }
        removeContainer(sandboxName);
        networks.remove(sandboxName);
        // the home goes with the sandbox, as a writable root's layer does: only the workspace is kept
        removeHomeQuietly(sandboxName);
        if (volume == null || volume.equals(keptVolume)) {
            return volume;
        }
        try {
            docker.inspectVolumeCmd(volume).exec();
        } catch (NotFoundException e) {
            return null;
        }
        Map<String, String> all = new HashMap<>(labels);
        workspaces.move(volume, keptVolume, image == null ? "dockyard/sandbox:latest" : image, all);
        return keptVolume;
    }

    @Override
    public void removeWorkspace(String volume) {
        workspaces.remove(volume);
    }

    @Override
    public List<WorkspaceVolume> listWorkspaces(String controlPlane) {
        return workspaces.list(controlPlane);
    }

    @Override
    public long workspaceBytes(String volume) {
        return workspaces.bytes(volume);
    }

    /**
     * Commits the (frozen) container to {@code dockyard/snapshot:<id>} and copies its workspace to
     * the volume {@code dockyard-snapshot-<id>}; the volume is copied first, as the commit of a
     * large layer takes longest and the copy must see the same moment. A read-only root's home
     * volume, which no commit carries, is then written into the image ({@link #bakeHome}).
     */
    @Override
    public SnapshotCapture capture(String sandboxName, String snapshotId, Map<String, String> labels) {
        String source = workspaceVolume(sandboxName);
        if (source == null) {
            throw new BackendException("sandbox '" + sandboxName + "' has no workspace volume to snapshot");
        }
        String image = SNAPSHOT_REPOSITORY + ":" + snapshotId;
        String volume = "dockyard-snapshot-" + snapshotId;
        String containerImage;
        try {
            containerImage = docker.inspectContainerCmd(sandboxName).exec().getImageId();
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        }
        workspaces.copy(source, volume, containerImage, labels, true);
        try {
            docker.commitCmd(sandboxName).withRepository(SNAPSHOT_REPOSITORY).withTag(snapshotId)
                    .withLabels(labels).withPause(false).exec();
            if (homeVolume(sandboxName) != null) {
                bakeHome(sandboxName, snapshotId, labels);
            }
            long layer = layerBytes(image, containerImage);
            long disk = Math.max(0, workspaces.bytes(volume));
            return new SnapshotCapture(image, volume, layer + disk, workspaces.sizeFor(diskMbOf(volume)));
        } catch (RuntimeException e) {
            removeWorkspaceQuietly(volume);
            removeImageQuietly(image);
            throw e instanceof BackendException b ? b
                    : new BackendException("Docker could not commit '" + sandboxName + "': " + describe(e), e);
        }
    }

    /** Where snapshot images are tagged. */
    static final String SNAPSHOT_REPOSITORY = "dockyard/snapshot";

    /**
     * Writes the frozen sandbox's home volume into the snapshot's image, at the place the volume is
     * mounted: a scratch container of the committed image (never started) receives the home's
     * contents and is committed under the same tag. A sandbox started from the snapshot gets a
     * fresh home volume there, which the engine fills from the image: the home carried over.
     */
    private void bakeHome(String sandboxName, String snapshotId, Map<String, String> labels) {
        String image = SNAPSHOT_REPOSITORY + ":" + snapshotId;
        String scratch = docker.createContainerCmd(image).exec().getId();
        try (InputStream home = docker.copyArchiveFromContainerCmd(sandboxName, SandboxConfinement.HOME_DIR + "/.")
                .exec()) {
            docker.copyArchiveToContainerCmd(scratch).withTarInputStream(home)
                    .withRemotePath(SandboxConfinement.HOME_DIR).exec();
            docker.commitCmd(scratch).withRepository(SNAPSHOT_REPOSITORY).withTag(snapshotId).withLabels(labels)
                    .withPause(false).exec();
        } catch (IOException e) {
            throw new BackendException("the home archive of '" + sandboxName + "' broke off: " + e.getMessage(), e);
        } finally {
            removeContainer(scratch);
        }
    }

    /** Removes a half-made snapshot's image: the commit went through, writing the home in did not. */
    private void removeImageQuietly(String image) {
        try {
            docker.removeImageCmd(image).withForce(false).exec();
        } catch (NotFoundException e) {
            // never committed
        } catch (DockerException e) {
            LOG.warning("Could not remove the image " + image + " of a failed snapshot: " + describe(e));
        }
    }

    /** The home volume the sandbox mounts (a read-only root's), or null when it has none. */
    private String homeVolume(String sandboxName) {
        InspectContainerResponse inspect = docker.inspectContainerCmd(sandboxName).exec();
        return inspect.getMounts() == null ? null : inspect.getMounts().stream()
                .filter(m -> m.getDestination() != null && SandboxConfinement.HOME_DIR.equals(m.getDestination().getPath()))
                .map(InspectContainerResponse.Mount::getName).filter(n -> n != null).findFirst().orElse(null);
    }

    /** The committed layers alone: the snapshot's image less the image its sandbox ran. */
    private long layerBytes(String image, String base) {
        InspectImageResponse inspect = docker.inspectImageCmd(image).exec();
        long size = inspect.getSize() == null ? 0 : inspect.getSize();
        try {
            Long baseSize = docker.inspectImageCmd(base).exec().getSize();
            return Math.max(0, size - (baseSize == null ? 0 : baseSize));
        } catch (NotFoundException e) {
            return size;
        }
    }

    private int diskMbOf(String volume) {
        return (int) (workspaces.capacityBytes(volume) / (1024 * 1024));
    }

    @Override
    public void removeSnapshot(String image, String volume) {
        try {
            docker.removeImageCmd(image).withForce(false).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (ConflictException e) {
            throw new BackendException("the snapshot's image " + image + " is still used by a sandbox", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not remove image " + image + ": " + describe(e), e);
        }
        workspaces.remove(volume);
    }

    @Override
    public InputStream archive(String sandboxName, String path) {
        try {
            return docker.copyArchiveFromContainerCmd(sandboxName, path).exec();
        } catch (NotFoundException e) {
            throw new BackendException("no " + path + " in sandbox '" + sandboxName + "' (or the sandbox is gone)", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not archive " + path + " of '" + sandboxName + "': "
                    + describe(e), e);
        }
    }

    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        try {
            docker.copyArchiveToContainerCmd(sandboxName).withTarInputStream(tar).withRemotePath(directory).exec();
        } catch (NotFoundException e) {
            throw new BackendException("sandbox '" + sandboxName + "' has no " + directory + " (or is gone)", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not unpack the archive into '" + sandboxName + "': "
                    + describe(e), e);
        }
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        try {
            return docker.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(Labels.MANAGED, "true", Labels.CONTROL_PLANE, controlPlane)).exec()
                    .stream()
                    .map(c -> new ManagedSandbox(
                            c.getNames() != null && c.getNames().length > 0 ? c.getNames()[0].replaceFirst("^/", "") : c.getId(),
                            c.getLabels().get(Labels.RUNTIME_ID), c.getLabels().get(Labels.CONVERSATION_ID),
                            Instant.ofEpochSecond(c.getCreated() == null ? 0 : c.getCreated()),
                            phaseOf(c.getState())))
                    .toList();
        } catch (RuntimeException e) {
            throw new BackendException("Docker could not list the managed containers: " + describe(e), e);
        }
    }

    /** Docker's list state: a paused container is alive (frozen), only exited/dead ones stopped. */
    static SandboxState.Phase phaseOf(String state) {
        if (state == null) {
            return SandboxState.Phase.EXITED;
        }
        return switch (state) {
            case "running", "restarting" -> SandboxState.Phase.RUNNING;
            case "paused" -> SandboxState.Phase.PAUSED;
            case "created" -> SandboxState.Phase.CREATED;
            default -> SandboxState.Phase.EXITED;
        };
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message.strip();
    }
}
