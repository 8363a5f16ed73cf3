package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import dev.dockyard.backend.CapturedSnapshot;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxUsage;
import dev.dockyard.backend.SnapshotCapture;
import dev.dockyard.backend.WorkspaceVolume;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Sandboxes as Docker containers, one backend per engine ({@link DockerNodeFactory}). A sandbox is a
 * labelled, hardened container ({@link SandboxHardening}: all capabilities dropped, no new
 * privileges, a pids limit, CPU and memory limits, an init process, the executor port published
 * on a loopback address of its own only, at a port Docker picks), confined further as its node says
 * ({@link SandboxConfinement}: a read-only root, the open-file limit, the runtime class, GPUs and
 * extra networks). Its executor's {@code /workspace} is a labelled volume of its own
 * ({@link WorkspaceVolumes}: size-bounded where this host allows), created with the sandbox and
 * removed with it unless it is kept; its egress policy's network and packet-filter rules
 * ({@link SandboxNetworks}) are made before it and go with it.
 *
 * <p>This class only routes each part of the port to the class whose job it is:
 * {@link SandboxCreation} makes a sandbox, {@link ContainerLifecycle} starts, settles, freezes,
 * thaws and stops it, {@link ContainerFiles} moves files in and out, {@link SandboxRemoval} removes
 * it (keeping its workspace if asked), {@link SandboxSnapshots} commits it, and
 * {@link ContainerViews} reads its state and lists a control plane's sandboxes. Reviving a stopped
 * sandbox touches several of them and is spelled out here.
 */
public class DockerBackend implements RuntimeBackend {

    /** The egress helper image docker/build-egress-helper-image.sh builds (MP Config's default). */
    public static final String DEFAULT_EGRESS_HELPER = "dockyard/egress-helper:latest";

    private final DockerClient docker;
    private final WorkspaceVolumes workspaces;
    private final SandboxNetworks networks;
    private final HomeVolumes homes;
    private final ContainerViews views;
    private final ContainerUsage usage;
    private final ContainerLifecycle lifecycle;
    private final ContainerFiles files;
    private final SandboxRemoval removal;
    private final SandboxCreation creation;
    private final SandboxSnapshots snapshots;

    /**
     * One backend per engine, made by {@link DockerNodeFactory}. {@code settings}: how this node
     * confines sandboxes; {@code egressHelperImage}: what installs the
     * packet-filter rules of egress policies ({@link SandboxNetworks}).
     */
    DockerBackend(DockerClient docker, WorkspaceVolumes workspaces, SandboxHostSettings settings,
                  String egressHelperImage) {
        this.docker = docker;
        this.workspaces = workspaces;
        this.networks = new SandboxNetworks(docker, new EgressHelper(docker, egressHelperImage));
        this.homes = new HomeVolumes(docker, settings.homeDiskMb() > 0 ? workspaces.disks() : null,
                settings.homeDiskMb(), Clock.systemUTC());
        this.views = new ContainerViews(docker);
        this.usage = new ContainerUsage(docker);
        this.lifecycle = new ContainerLifecycle(docker, views);
        this.files = new ContainerFiles(docker);
        this.removal = new SandboxRemoval(docker, workspaces, homes, networks, views);
        this.creation = new SandboxCreation(docker, workspaces, networks, homes, settings, files, removal);
        this.snapshots = new SandboxSnapshots(docker, workspaces, views, removal);
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
    public void prepare() {
        networks.prepare();
    }

    @Override
    public String create(SandboxSpec spec) {
        return creation.create(spec);
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        files.handEnvironment(sandboxName, environment, user, "could not rewrite the environment file");
    }

    /**
     * Starts a stopped sandbox again as it was: what a host reboot lost (a bounded volume's disk,
     * the packet-filter rules) is restored first, and an executor gets a new session key.
     */
    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        // after a host reboot a bounded workspace's disk is attached again before its mount is needed
        workspaces.ensureAttached(views.workspaceVolume(sandboxName));
        if (views.homeVolume(sandboxName) != null) {
            homes.ensureAttached(sandboxName);
        }
        // a rebooted host lost its packet-filter rules: the sandbox sends nothing before they are back
        networks.reapply(sandboxName);
        if (!views.runsProcess(sandboxName)) {
            // the executor deleted its key file when it first booted: it refuses to start without a new one
            files.handKey(sandboxName, sessionKey, List.of(), user);
        }
        return start(sandboxName, executorPort);
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        return lifecycle.start(sandboxName, executorPort);
    }

    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        return lifecycle.endpoint(sandboxName, executorPort);
    }

    /**
     * Only where the running, unfrozen container publishes a port now: a stopped one's port may be
     * anyone's, and a frozen one's answers nothing.
     */
    @Override
    public boolean listensAt(String sandboxName, URI endpoint) {
        return lifecycle.publishes(sandboxName, endpoint);
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        lifecycle.settle(sandboxName, cpus);
    }

    @Override
    public void pause(String sandboxName) {
        lifecycle.pause(sandboxName);
    }

    @Override
    public void unpause(String sandboxName) {
        lifecycle.unpause(sandboxName);
    }

    @Override
    public void stop(String sandboxName) {
        lifecycle.stop(sandboxName);
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        return views.state(sandboxName);
    }

    @Override
    public Optional<SandboxUsage> usage(String sandboxName) {
        return usage.sample(sandboxName);
    }

    @Override
    public void remove(String sandboxName) {
        removal.remove(sandboxName);
    }

    @Override
    public int sweepNetworks(String controlPlane, Instant cutoff) {
        return networks.sweep(controlPlane, cutoff);
    }

    @Override
    public int sweepHomes(String controlPlane, Instant cutoff) {
        return homes.sweep(controlPlane, cutoff);
    }

    @Override
    public int sweepCaptures(String controlPlane, Predicate<CapturedSnapshot> abandoned) {
        return snapshots.sweep(controlPlane, abandoned);
    }

    @Override
    public int sweepHelpers(String controlPlane, Instant cutoff) {
        return workspaces.sweepCopiers(controlPlane, cutoff);
    }

    /** The packet-filter rules the engine's host has for the sandbox's own network ({@code iptables -S}). */
    public String egressRules(String sandboxName) {
        return networks.listRules(sandboxName);
    }

    @Override
    public String workspaceVolume(String sandboxName) {
        return views.workspaceVolume(sandboxName);
    }

    @Override
    public String keepWorkspace(String sandboxName, String keptVolume, Map<String, String> labels) {
        return removal.keepWorkspace(sandboxName, keptVolume, labels);
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

    /** See {@link SandboxSnapshots#capture}. */
    @Override
    public SnapshotCapture capture(String sandboxName, String snapshotId, Map<String, String> labels) {
        return snapshots.capture(sandboxName, snapshotId, labels);
    }

    @Override
    public void removeSnapshot(String image, String volume) {
        snapshots.remove(image, volume);
    }

    @Override
    public InputStream archive(String sandboxName, String path) {
        return files.archive(sandboxName, path);
    }

    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        files.restore(sandboxName, directory, tar);
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        return views.listManaged(controlPlane);
    }
}
