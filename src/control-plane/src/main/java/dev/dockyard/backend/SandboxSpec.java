package dev.dockyard.backend;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a backend needs to create a sandbox. {@code bootCpus} is the CPU limit while it boots
 * (0: no limit), {@code cpus} the one it settles to once ready. The session key is handed to the executor through the
 * sandbox's file system, never as an environment variable or label, so that it does not show up in
 * {@code docker inspect}. There is no environment here on purpose (but {@code executorServer}'s one
 * variable, below): the sandbox's configuration, the request's own variables included, goes in
 * through the executor once it is ready.
 * {@code plugins}: the executor plugins to start (PROTOCOL.md's /ready waits for them), handed to
 * the sandbox beside the key.
 *
 * <p>A sandbox of another image runs {@code process} instead of the executor (null for Dockyard's
 * executor); {@code executorPort} is then its main port. {@code servicePorts} are the further
 * ports published (on the sandbox's own loopback address only, like the main one) for the service
 * URL proxy.
 *
 * <p>{@code workspace}: where the executor's {@code /workspace} lives (see {@link SandboxWorkspace});
 * null is a fresh volume of the backend's default size. A sandbox that runs its own process gets none.
 * {@code extraLabels} go on the sandbox beside those of {@link Labels#of} (e.g. {@link Labels#POOL}).
 *
 * <p>{@code background}: nobody waits for this sandbox's boot (a warm pool's member), so it boots
 * at the lowest CPU weight the backend has and yields the CPU to sandboxes in use and to claims;
 * {@link RuntimeBackend#settle} gives it the normal weight once it is ready.
 *
 * <p>{@code egress}: where the sandbox may open connections ({@link EgressPolicy}; null is open).
 * <p>{@code isolation}: the runtime class, GPUs and extra networks asked for (null: the node's defaults).
 * <p>{@code executorServer}: how an executor sandbox starts its executor ({@link ExecutorServer}; null
 * is {@link ExecutorServer#DEFAULT}), the one variable a backend puts in its environment
 * ({@link ExecutorServer#VARIABLE}): a choice of how to boot, not configuration, and no secret. A
 * sandbox of another image's program has none.
 */
public record SandboxSpec(String runtimeId, String conversationId, String controlPlane, String name, String image, double cpus,
                          double bootCpus, int memoryMb, long pidsLimit, String user, int executorPort,
                          String sessionKey, List<String> plugins, SandboxProcess process, List<Integer> servicePorts,
                          SandboxWorkspace workspace, Map<String, String> extraLabels, boolean background,
                          EgressPolicy egress, SandboxIsolation isolation, ExecutorServer executorServer) {

    public SandboxSpec {
        executorServer = process != null ? null : executorServer == null ? ExecutorServer.DEFAULT : executorServer;
        egress = egress == null ? EgressPolicy.OPEN : egress;
        isolation = isolation == null ? SandboxIsolation.DEFAULT : isolation;
        plugins = List.copyOf(plugins);
        servicePorts = List.copyOf(servicePorts);
        extraLabels = Map.copyOf(extraLabels);
    }

    /** A sandbox of the open egress policy. */
    public SandboxSpec(String runtimeId, String conversationId, String controlPlane, String name, String image,
                       double cpus, double bootCpus, int memoryMb, long pidsLimit, String user, int executorPort,
                       String sessionKey, List<String> plugins, SandboxProcess process, List<Integer> servicePorts,
                       SandboxWorkspace workspace, Map<String, String> extraLabels, boolean background) {
        this(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb, pidsLimit, user,
                executorPort, sessionKey, plugins, process, servicePorts, workspace, extraLabels, background, null, null, null);
    }

    /** A sandbox whose workspace is a fresh volume of the backend's default size. */
    public SandboxSpec(String runtimeId, String conversationId, String controlPlane, String name, String image,
                       double cpus, double bootCpus, int memoryMb, long pidsLimit, String user, int executorPort,
                       String sessionKey, List<String> plugins, SandboxProcess process, List<Integer> servicePorts) {
        this(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb, pidsLimit, user,
                executorPort, sessionKey, plugins, process, servicePorts, null, Map.of(), false, null, null, null);
    }

    /** The same sandbox with these labels beside Dockyard's own. */
    public SandboxSpec withLabels(Map<String, String> labels) {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, workspace, labels, background,
                egress, isolation, executorServer);
    }

    /** The same sandbox with its workspace elsewhere. */
    public SandboxSpec withWorkspace(SandboxWorkspace newWorkspace) {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, newWorkspace, extraLabels,
                background, egress, isolation, executorServer);
    }

    /** The same sandbox, booted in the background (see the class comment). */
    public SandboxSpec inBackground() {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, workspace, extraLabels, true,
                egress, isolation, executorServer);
    }

    /** The same sandbox under this egress policy. */
    public SandboxSpec withEgress(EgressPolicy policy) {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, workspace, extraLabels,
                background, policy, isolation, executorServer);
    }

    /** The same sandbox with the isolation its request asked for (see {@link SandboxIsolation}). */
    public SandboxSpec withIsolation(SandboxIsolation newIsolation) {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, workspace, extraLabels,
                background, egress, newIsolation, executorServer);
    }

    /** The same sandbox, its executor started on {@code server} (see {@link ExecutorServer}). */
    public SandboxSpec withExecutorServer(ExecutorServer server) {
        return new SandboxSpec(runtimeId, conversationId, controlPlane, name, image, cpus, bootCpus, memoryMb,
                pidsLimit, user, executorPort, sessionKey, plugins, process, servicePorts, workspace, extraLabels,
                background, egress, isolation, server);
    }

    public Map<String, String> labels() {
        Map<String, String> labels = new HashMap<>(extraLabels);
        labels.putAll(Labels.of(runtimeId, conversationId, controlPlane));
        if (process != null) {
            labels.put(Labels.PROCESS, "true");
        }
        return Map.copyOf(labels);
    }

    @Override
    public String toString() {
        // never print the key
        return "SandboxSpec[runtimeId=" + runtimeId + ", name=" + name + ", image=" + image + ", cpus=" + cpus
                + ", memoryMb=" + memoryMb + ", network=" + egress.mode().apiName()
                + (executorServer == null ? "" : ", executorServer=" + executorServer.apiName()) + "]";
    }
}
