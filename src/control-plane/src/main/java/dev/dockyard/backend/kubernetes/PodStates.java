package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.SandboxState;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A pod's phase and container states as a {@link SandboxState}. A pod that cannot run (its image
 * cannot be pulled, its container was OOM-killed or crash-loops) counts as exited, with the
 * reason Kubernetes gives and its message as the first line of the state's text, so that an ERROR
 * message names the cause.
 */
final class PodStates {

    /** Waiting reasons that do not resolve on their own: the pod will not become ready. */
    static final Set<String> STUCK = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError", "CrashLoopBackOff",
            "RunContainerError");

    private PodStates() {
    }

    static SandboxState of(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return new SandboxState(SandboxState.Phase.EXITED, null, "the pod is being deleted");
        }
        PodStatus status = pod.getStatus();
        String phase = status == null || status.getPhase() == null ? "Pending" : status.getPhase();
        Optional<String> stuck = problem(status);
        Integer exit = exitCode(status);
        return switch (phase) {
            case "Running" -> stuck.isPresent() || exit != null
                    ? new SandboxState(SandboxState.Phase.EXITED, exit, stuck.orElse(terminated(status)))
                    : new SandboxState(SandboxState.Phase.RUNNING, null, "");
            case "Pending" -> stuck.map(p -> new SandboxState(SandboxState.Phase.EXITED, exit, p))
                    .orElse(new SandboxState(SandboxState.Phase.CREATED, null, ""));
            default -> new SandboxState(SandboxState.Phase.EXITED, exit,
                    stuck.orElse(terminated(status)) + reason(status));
        };
    }

    /** Why the pod will not run: the first stuck waiting state of any container, or an OOM kill. */
    static Optional<String> problem(PodStatus status) {
        for (ContainerStatus container : containers(status)) {
            ContainerState state = container.getState();
            if (state == null) {
                continue;
            }
            if (state.getWaiting() != null && STUCK.contains(state.getWaiting().getReason())) {
                return Optional.of(state.getWaiting().getReason() + " (container " + container.getName() + "): "
                        + Optional.ofNullable(state.getWaiting().getMessage()).orElse(""));
            }
            if (state.getTerminated() != null && "OOMKilled".equals(state.getTerminated().getReason())) {
                return Optional.of("OOMKilled (container " + container.getName()
                        + "): it used more memory than its limit");
            }
        }
        return Optional.empty();
    }

    private static String terminated(PodStatus status) {
        for (ContainerStatus container : containers(status)) {
            if (container.getState() != null && container.getState().getTerminated() != null) {
                var terminated = container.getState().getTerminated();
                return Optional.ofNullable(terminated.getReason()).orElse("Terminated") + " (container "
                        + container.getName() + ")" + Optional.ofNullable(terminated.getMessage()).map(m -> ": " + m)
                        .orElse("");
            }
        }
        return "";
    }

    private static String reason(PodStatus status) {
        if (status == null || status.getReason() == null) {
            return "";
        }
        return " [pod " + status.getReason() + Optional.ofNullable(status.getMessage()).map(m -> ": " + m).orElse("")
                + "]";
    }

    private static Integer exitCode(PodStatus status) {
        for (ContainerStatus container : containers(status)) {
            if (container.getState() != null && container.getState().getTerminated() != null
                    && (container.getState().getTerminated().getExitCode() != 0
                    || SandboxObjects.EXECUTOR.equals(container.getName()))) {
                return container.getState().getTerminated().getExitCode();
            }
        }
        return null;
    }

    private static List<ContainerStatus> containers(PodStatus status) {
        List<ContainerStatus> all = new ArrayList<>();
        if (status != null) {
            Optional.ofNullable(status.getInitContainerStatuses()).ifPresent(all::addAll);
            Optional.ofNullable(status.getContainerStatuses()).ifPresent(all::addAll);
        }
        return all;
    }
}
