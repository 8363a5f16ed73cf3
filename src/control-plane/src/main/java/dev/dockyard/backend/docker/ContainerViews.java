package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.HostConfig;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.SandboxState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the engine says about sandboxes, read-only: the state of one (with the last lines of an
 * exited one's output), the managed containers of a control plane for the reconciler, and what a
 * container was made with (the volumes it mounts, whether it runs an image's own process, its
 * runtime). Nothing here changes a container.
 */
final class ContainerViews {

    private final DockerClient docker;

    ContainerViews(DockerClient docker) {
        this.docker = docker;
    }

    /** The sandbox's phase; an exited one's exit code and last output; missing when there is no such container. */
    SandboxState state(String sandboxName) {
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

    /** Every container labelled as managed by {@code controlPlane}, stopped ones too. */
    List<ManagedSandbox> listManaged(String controlPlane) {
        try {
            return docker.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(Labels.MANAGED, "true", Labels.CONTROL_PLANE, controlPlane)).exec()
                    .stream()
                    .map(ContainerViews::managed)
                    .toList();
        } catch (EngineUnreachableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BackendException("Docker could not list the managed containers: " + DockerErrors.describe(e), e);
        }
    }

    /**
     * A listed container as a sandbox. One a replacement set aside (the old one it could not remove,
     * or a copy it did not finish) carries the sandbox's labels but is no runtime's: listed as
     * nobody's, it is an orphan the reconciler removes, never taken for the runtime's own.
     */
    private static ManagedSandbox managed(Container c) {
        String name = c.getNames() != null && c.getNames().length > 0 ? c.getNames()[0].replaceFirst("^/", "") : c.getId();
        boolean aside = ContainerReplacement.aside(name);
        return new ManagedSandbox(name, aside ? null : c.getLabels().get(Labels.RUNTIME_ID),
                aside ? null : c.getLabels().get(Labels.CONVERSATION_ID),
                Instant.ofEpochSecond(c.getCreated() == null ? 0 : c.getCreated()), phaseOf(c.getState()));
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

    /** The volume the sandbox mounts at {@code /workspace}, or null when it has none or is gone. */
    String workspaceVolume(String sandboxName) {
        try {
            return mountedAt(docker.inspectContainerCmd(sandboxName).exec(), WorkspaceVolumes.MOUNTED_AT);
        } catch (NotFoundException e) {
            return null;
        }
    }

    /** The home volume the sandbox mounts (a read-only root's), or null when it has none. */
    String homeVolume(String sandboxName) {
        return mountedAt(docker.inspectContainerCmd(sandboxName).exec(), SandboxConfinement.HOME_DIR);
    }

    private static String mountedAt(InspectContainerResponse inspect, String path) {
        return inspect.getMounts() == null ? null : inspect.getMounts().stream()
                .filter(m -> m.getDestination() != null && path.equals(m.getDestination().getPath()))
                .map(InspectContainerResponse.Mount::getName).filter(n -> n != null).findFirst().orElse(null);
    }

    /** Whether the sandbox runs an image's own process rather than Dockyard's executor (its label says). */
    boolean runsProcess(String sandboxName) {
        try {
            Map<String, String> labels = docker.inspectContainerCmd(sandboxName).exec().getConfig().getLabels();
            return labels != null && "true".equals(labels.get(Labels.PROCESS));
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        }
    }

    /** The engine runtime the container runs on (runc, runsc, …), or null when unknown. */
    String runtimeOf(String sandboxName) {
        try {
            HostConfig host = docker.inspectContainerCmd(sandboxName).exec().getHostConfig();
            return host == null ? null : host.getRuntime();
        } catch (DockerException e) {
            return null;
        }
    }
}
