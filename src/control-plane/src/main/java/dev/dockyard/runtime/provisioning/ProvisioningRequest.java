package dev.dockyard.runtime.provisioning;

import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.tenancy.Role;
import dev.dockyard.runtime.RepositorySpec;
import java.util.List;
import java.util.Map;

/**
 * A validated request for a runtime, with every default already applied.
 *
 * @param timeoutSeconds how long the sandbox may take to become ready
 * @param agent          the agent the runtime serves (its policy applies)
 * @param llm            the LLM settings: the request's over the agent's defaults
 * @param extraDependencies what to add to a base image when its runtime image is built
 * @param plugins        the executor plugins to start: the agent's and the request's
 * @param repository     the git repository to clone into the workspace, or null
 * @param replace        replace the conversation's live runtime (the new one READY before the old one goes)
 * @param failAt         a step to fail on purpose (fault injection, when enabled), else null
 * @param program        what the sandbox runs when it is not Dockyard's executor, else null
 * @param servicePorts   the services beside the main one the proxy carries: name → sandbox port
 * @param lifecycle      keepAlive, idle timeout and TTL; null: the configured defaults
 * @param workspace      the workspace asked for (size, a kept one, a snapshot)
 * @param egress         where the sandbox may open connections (null: open)
 * @param isolation      the runtime class, GPUs and extra networks asked for (the node's defaults when none)
 * @param executorServer how the sandbox starts its executor ({@link ExecutorServer}), or null: as its node's do
 * @param metadata       the template it is asked for by and its caller's key-values (E2B's API), or none
 */
public record ProvisioningRequest(String userId, Role role, String conversationId,
                                  AgentProfile agent, LlmSettings llm, String image, double cpus, int memoryMb,
                                  int timeoutSeconds, Map<String, String> environment,
                                  ExtraDependencies extraDependencies,
                                  List<String> plugins, RepositorySpec repository,
                                  boolean replace,
                                  ProvisioningStep failAt, SandboxProgram program, Map<String, Integer> servicePorts,
                                  Lifecycle lifecycle, WorkspaceRequest workspace, EgressPolicy egress,
                                  SandboxIsolation isolation, ExecutorServer executorServer,
                                  RuntimeMetadata metadata) {

    /**
     * The request's idle lifecycle (API.md: {@code sandbox.keepAlive}, {@code idleTimeoutSeconds},
     * {@code ttlSeconds}) and its end time (E2B's {@code timeout}): {@code endAfterSeconds} after its
     * creation (0: none), when {@code atEnd} happens.
     */
    public record Lifecycle(boolean keepAlive, int idleTimeoutSeconds, int ttlSeconds, int endAfterSeconds,
                            EndAction atEnd) {

        /** A lifecycle without an end time. */
        public Lifecycle(boolean keepAlive, int idleTimeoutSeconds, int ttlSeconds) {
            this(keepAlive, idleTimeoutSeconds, ttlSeconds, 0, EndAction.STOP);
        }
    }

    public ProvisioningRequest {
        environment = Map.copyOf(environment);
        servicePorts = Map.copyOf(servicePorts);
        workspace = workspace == null ? WorkspaceRequest.DEFAULT : workspace;
        egress = egress == null ? EgressPolicy.OPEN : egress;
        isolation = isolation == null ? SandboxIsolation.DEFAULT : isolation;
        metadata = metadata == null ? RuntimeMetadata.NONE : metadata;
    }

    /** A request of the open egress policy and the node's default isolation. */
    public ProvisioningRequest(String userId, Role role, String conversationId, AgentProfile agent, LlmSettings llm,
                               String image, double cpus, int memoryMb, int timeoutSeconds,
                               Map<String, String> environment, ExtraDependencies extraDependencies,
                               List<String> plugins, RepositorySpec repository, boolean replace,
                               ProvisioningStep failAt, SandboxProgram program, Map<String, Integer> servicePorts,
                               Lifecycle lifecycle, WorkspaceRequest workspace) {
        this(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds, environment,
                extraDependencies, plugins, repository, replace, failAt, program, servicePorts, lifecycle, workspace,
                null, null, null, null);
    }

    /** The same request under this egress policy. */
    public ProvisioningRequest withEgress(EgressPolicy policy) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, failAt, program, servicePorts, lifecycle,
                workspace, policy, isolation, executorServer, metadata);
    }

    /** A request with the configured idle lifecycle and a fresh workspace of the default size. */
    public ProvisioningRequest(String userId, Role role, String conversationId, AgentProfile agent, LlmSettings llm,
                               String image, double cpus, int memoryMb, int timeoutSeconds,
                               Map<String, String> environment, ExtraDependencies extraDependencies,
                               List<String> plugins, RepositorySpec repository, boolean replace,
                               ProvisioningStep failAt, SandboxProgram program, Map<String, Integer> servicePorts) {
        this(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds, environment,
                extraDependencies, plugins, repository, replace, failAt, program, servicePorts, null, null, null, null,
                null, null);
    }

    /** A request for a runtime of Dockyard's executor with no further services. */
    public ProvisioningRequest(String userId, Role role, String conversationId, AgentProfile agent, LlmSettings llm,
                               String image, double cpus, int memoryMb, int timeoutSeconds,
                               Map<String, String> environment, ExtraDependencies extraDependencies,
                               List<String> plugins, RepositorySpec repository, boolean replace,
                               ProvisioningStep failAt) {
        this(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds, environment,
                extraDependencies, plugins, repository, replace, failAt, null, Map.of(), null, null, null, null, null, null);
    }

    /** The same request with its own idle lifecycle. */
    public ProvisioningRequest with(Lifecycle requested) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, failAt, program, servicePorts, requested,
                workspace, egress, isolation, executorServer, metadata);
    }

    /** The same request, failing {@code step} on purpose (fault injection). */
    public ProvisioningRequest failingAt(ProvisioningStep step) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, step, program, servicePorts, lifecycle,
                workspace, egress, isolation, executorServer, metadata);
    }

    /** The same request with its workspace as given (and the image a snapshot was taken of, if not null). */
    public ProvisioningRequest withWorkspace(WorkspaceRequest newWorkspace, String newImage) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, newImage == null ? image : newImage,
                cpus, memoryMb, timeoutSeconds, environment, extraDependencies, plugins, repository, replace, failAt,
                program, servicePorts, lifecycle, newWorkspace, egress, isolation, executorServer, metadata);
    }

    /** The same request with the runtime class, GPUs and extra networks it asked for. */
    public ProvisioningRequest withIsolation(SandboxIsolation requested) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, failAt, program, servicePorts, lifecycle,
                workspace, egress, requested, executorServer, metadata);
    }

    /** The same request, its executor started on {@code server} (null: as its node's sandboxes do). */
    public ProvisioningRequest withExecutorServer(ExecutorServer server) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, failAt, program, servicePorts, lifecycle,
                workspace, egress, isolation, server, metadata);
    }

    /** The same request described as {@code described} (E2B's template and metadata). */
    public ProvisioningRequest describedAs(RuntimeMetadata described) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeoutSeconds,
                environment, extraDependencies, plugins, repository, replace, failAt, program, servicePorts, lifecycle,
                workspace, egress, isolation, executorServer, described);
    }

    /** The same request for another image with what its build adds to it. */
    public ProvisioningRequest withImage(String newImage, ExtraDependencies extra) {
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, newImage, cpus, memoryMb,
                timeoutSeconds, environment, extra, plugins, repository, replace, failAt, program, servicePorts,
                lifecycle, workspace, egress, isolation, executorServer, metadata);
    }
}
