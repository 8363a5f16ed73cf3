package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ulimit;
import com.github.dockerjava.api.model.Volume;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.SandboxSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The container settings that confine a sandbox beyond the fixed hardening: the read-only root
 * (executor sandboxes only: a foreign image's program may write anywhere in its image, and its
 * layout is not known), the open-file limit, the isolation runtime (gVisor is the engine's
 * {@code runsc}), GPUs as device requests, and the extra networks a request was allowed.
 *
 * <p>The read-only root is on by default ({@code dockyard.sandbox.read-only-root}); a request may
 * ask for a writable one ({@code sandbox.readOnlyRoot: false}). With a read-only root the
 * executor's state directory (where the session key is handed in before start) is an anonymous
 * volume: the engine copies files into volumes of a read-only container, never into its root or a
 * tmpfs (a tmpfs is mounted only at start). The volume is the container's own and goes with it.
 * The home directory is a named volume of the sandbox's own ({@link #homeVolume}) at
 * {@link #HOME_DIR}: on disk rather than in memory (what {@code pip install --user} fills), kept
 * while the sandbox is stopped and revived, and readable while the sandbox is frozen, so that a
 * snapshot can carry it (a commit carries no volume, and the engine cannot read a tmpfs).
 */
final class SandboxConfinement {

    /** The Docker runtime each runtime class runs on. */
    static final Map<String, String> DOCKER_RUNTIMES = Map.of(SandboxIsolation.RUNC, "runc",
            SandboxIsolation.GVISOR, "runsc");

    /**
     * Where a read-only sandbox's home volume is mounted; the image's launcher makes it the home
     * (docker/sandbox/bin/start-executor), seeded from the image's own home when empty. Runtime
     * images have it owned by the sandbox user, which the engine copies into the fresh volume.
     */
    static final String HOME_DIR = "/opt/dockyard/home";

    private SandboxConfinement() {
    }

    /** The sandbox's own home volume: named after it, so it is found and removed without it. */
    static String homeVolume(String sandboxName) {
        return sandboxName + "-home";
    }

    /** Whether the sandbox's root file system is read-only: executor sandboxes only, as asked or the node's default. */
    static boolean readOnlyRoot(SandboxSpec spec, SandboxHostSettings settings) {
        return spec.process() == null && spec.isolation().readOnlyRoot(settings.readOnlyRoot());
    }

    /** Sets the confinement of {@code spec} on the container being created. */
    static void apply(CreateContainerCmd create, HostConfig host, SandboxSpec spec, SandboxHostSettings settings) {
        if (settings.nofile() > 0) {
            host.withUlimits(List.of(new Ulimit("nofile", settings.nofile(), settings.nofile())));
        }
        if (readOnlyRoot(spec, settings)) {
            host.withReadonlyRootfs(true);
            Map<String, String> tmpfs = new LinkedHashMap<>();
            // exec: the agent runs what it builds in /tmp; sticky and world-writable like a real /tmp
            settings.writablePaths().forEach((path, size) -> tmpfs.put(path, "rw,exec,nosuid,nodev,mode=1777,size=" + size));
            host.withTmpFs(tmpfs);
            create.withVolumes(new Volume(ContainerFiles.KEY_DIR));
            // a bind rather than an anonymous volume: a commit would declare an anonymous one a VOLUME of the snapshot
            List<Bind> binds = new ArrayList<>(host.getBinds() == null ? List.of() : Arrays.asList(host.getBinds()));
            binds.add(new Bind(homeVolume(spec.name()), new Volume(HOME_DIR)));
            host.withBinds(binds);
        }
        String runtimeClass = runtimeClass(spec, settings);
        if (runtimeClass != null) {
            host.withRuntime(DOCKER_RUNTIMES.get(runtimeClass));
        }
        if (SandboxIsolation.GVISOR.equals(runtimeClass)) {
            // runsc cannot change a running sandbox's limits (no "update"): the steady ones from the start
            host.withNanoCPUs(SandboxHardening.nanoCpus(spec.cpus())).withCpuShares(SandboxHardening.NORMAL_CPU_SHARES);
        }
        SandboxIsolation.SandboxGpus gpus = spec.isolation().gpus();
        if (gpus != null) {
            DeviceRequest request = new DeviceRequest().withDriver("").withCapabilities(List.of(List.of("gpu")));
            host.withDeviceRequests(List.of(gpus.deviceIds().isEmpty() ? request.withCount(gpus.count())
                    : request.withDeviceIds(gpus.deviceIds())));
        }
    }

    /** The runtime class the sandbox runs on: its request's, else the node's default (null: the engine's). */
    static String runtimeClass(SandboxSpec spec, SandboxHostSettings settings) {
        return spec.isolation().runtimeClass() != null ? spec.isolation().runtimeClass() : settings.defaultRuntimeClass();
    }

    /** Attaches the created (not yet started) container to the extra networks its request was allowed. */
    static void attachNetworks(DockerClient docker, String container, SandboxSpec spec) {
        for (String network : spec.isolation().networks()) {
            try {
                docker.connectToNetworkCmd().withContainerId(container).withNetworkId(network).exec();
            } catch (DockerException e) {
                throw new BackendException("Docker could not attach the sandbox to network '" + network + "': "
                        + DockerErrors.describe(e), e);
            }
        }
    }
}
