package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.ContainerConfig;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a sandbox's container comes to exist, created but not started, with what it needs before
 * its first instruction: the executor's workspace volume (fresh, a copy of a snapshot's, or a kept
 * one mounted again), the egress policy's network and packet-filter rules, a read-only root's home
 * volume, then the container ({@link SandboxHardening} and {@link SandboxConfinement}), its extra
 * networks, and the executor's session key or the image's process's environment. A step that
 * fails undoes the ones before it ({@link SandboxRemoval}), except where the name turned out to be
 * another sandbox's: its volumes and network may be that one's too.
 */
final class SandboxCreation {

    private final DockerClient docker;
    private final WorkspaceVolumes workspaces;
    private final SandboxNetworks networks;
    private final HomeVolumes homes;
    private final SandboxHostSettings settings;
    private final ContainerFiles files;
    private final SandboxRemoval removal;

    SandboxCreation(DockerClient docker, WorkspaceVolumes workspaces, SandboxNetworks networks, HomeVolumes homes,
                    SandboxHostSettings settings, ContainerFiles files, SandboxRemoval removal) {
        this.docker = docker;
        this.workspaces = workspaces;
        this.networks = networks;
        this.homes = homes;
        this.settings = settings;
        this.files = files;
        this.removal = removal;
    }

    /** Creates the sandbox's container and what it needs; returns the container's id. */
    String create(SandboxSpec spec) {
        List<ExposedPort> exposed = SandboxHardening.exposedPorts(spec);
        HostConfig host = SandboxHardening.hostConfig(spec, exposed);
        SandboxProcess process = spec.process();
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
            removal.removeWorkspaceQuietly(ownVolume);
            throw e;
        }
        if (SandboxConfinement.readOnlyRoot(spec, settings)) {
            try {
                homes.create(spec);
            } catch (RuntimeException e) {
                removal.removeWorkspaceQuietly(ownVolume);
                removal.removeNetworkQuietly(network, spec.name());
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
            undo(ownVolume, network, spec.name());
            throw new BackendException("image '" + spec.image() + "' not found", e);
        } catch (ConflictException e) {
            // the name belongs to another sandbox: so may the volume (and network) named after it
            throw new BackendException("a container named '" + spec.name() + "' already exists", e);
        } catch (DockerException | IllegalArgumentException e) {
            undo(ownVolume, network, spec.name());
            throw new BackendException("Docker refused to create the container: " + DockerErrors.describe(e), e);
        }
        SandboxConfinement.attachNetworks(docker, id, spec);
        if (process == null) {
            files.handKey(id, spec.sessionKey(), spec.plugins(), spec.user());
        } else {
            files.handEnvironment(id, process.environment(), spec.user(),
                    "could not hand the environment to the container");
        }
        return id;
    }

    /** Removes what was made for a container the engine did not create. */
    private void undo(String ownVolume, String network, String sandboxName) {
        removal.removeWorkspaceQuietly(ownVolume);
        removal.removeNetworkQuietly(network, sandboxName);
        removal.removeHomeQuietly(sandboxName);
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
}
