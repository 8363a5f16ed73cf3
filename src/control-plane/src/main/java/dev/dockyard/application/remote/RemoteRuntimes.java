package dev.dockyard.application.remote;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ConversationBusyException;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * OpenHands' runtimes on Dockyard. A session is a conversation, so a session has one live
 * runtime: starting it again answers that one. An image labelled as a Dockyard runtime image runs
 * Dockyard's executor (and OpenHands' action protocol works through its URL); any other image
 * runs its own command, with OpenHands' ports ({@code main} 60000, {@code vscode} 60001,
 * {@code work-1} 12000, {@code work-2} 12001 by default) reachable through the proxy.
 *
 * <p>The key OpenHands gets ({@code session_api_key}) is the runtime's service key: resuming
 * replaces it, and the proxy refuses the old one from then on.
 */
@ApplicationScoped
public class RemoteRuntimes {

    /** The service names of OpenHands' exposed URLs beside the agent server. */
    public static final String VSCODE = "vscode";
    public static final String WORK_1 = "work-1";
    public static final String WORK_2 = "work-2";

    /**
     * How long a resume waits for a runtime being recovered: a sandbox started again answers in
     * seconds; below the 10 s OpenHands' clients give a Runtime API call, after which they poll the
     * runtime (pending while it is recovered) for as long as they give a runtime to start.
     */
    static final Duration RECOVERY_WAIT = Duration.ofSeconds(7);

    @Inject
    RuntimeService lifecycle;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    @Inject
    NodeAccess nodeAccess;

    @Inject
    AgentCatalog agents;

    @Inject
    ImageAccess imageAccess;

    @Inject
    DockyardConfig config;

    @Inject
    ExecutorOutages outages;

    /**
     * Whether {@code /resume} hands out a new key. Off by default: OpenHands' SDK attaches to a
     * paused runtime with the key it read while the runtime was paused, then resumes it, and its
     * {@code resume()} keeps its key, as its legacy runtime does; its app server reads the key
     * again either way. On, the old key stops working at a resume (for the app server alone).
     */
    @Inject
    @ConfigProperty(name = "dockyard.runtime-api.new-key-on-resume", defaultValue = "false")
    boolean newKeyOnResume;

    /**
     * The session's live runtime, or a new one being provisioned (answered at once, before it is
     * ready: OpenHands' clients poll).
     */
    public SandboxRuntime start(String userId, Role role, RemoteStart start) {
        Optional<SandboxRuntime> live = journal.live(userId, start.sessionId());
        if (live.isPresent()) {
            return live.get();
        }
        String imageNode = nodes.named(start.node());
        RuntimeImageBuilder.ImageInfo image;
        try {
            if (start.node() != null) {
                // before its images are looked at: a node the user may not use tells them nothing
                nodes.on(start.node());
                nodeAccess.require(start.node(), userId, role);
            }
            // another user's image, or one not on the engine: the same 400 (this API's answer for an
            // image it cannot run), so that nothing tells them apart
            image = imageAccess.usable(imageNode, start.image(), userId, role == Role.ADMIN).orElseThrow(() ->
                    new Refused(Refused.Reason.VALIDATION, imageAccess.notFound(imageNode, start.image()).getMessage()));
        } catch (BackendNodes.UnknownNodeException e) {
            throw new Refused(Refused.Reason.VALIDATION, e.getMessage());
        }
        boolean executor = "true".equals(image.labels().get(Labels.RUNTIME_IMAGE));
        double cpus = config.sandboxCpus() * start.resourceFactor();
        int memoryMb = config.sandboxMemoryMb() * start.resourceFactor();
        if (cpus > config.maxCpus() || memoryMb > config.maxMemoryMb()) {
            throw new Refused(Refused.Reason.VALIDATION, "resource_factor " + start.resourceFactor() + " asks for "
                    + cpus + " CPUs and " + memoryMb + " MiB; at most " + config.maxCpus() + " CPUs and "
                    + config.maxMemoryMb() + " MiB are allowed");
        }
        AgentProfile agent = agents.find(agents.defaultAgent()).orElseThrow();
        Map<String, Integer> ports = new LinkedHashMap<>();
        SandboxProgram program = null;
        Map<String, String> executorEnvironment = Map.of();
        if (executor) {
            // Dockyard's executor: OpenHands' environment reaches its shell like sandbox.env does
            executorEnvironment = start.environment();
        } else {
            ports.put(VSCODE, config.runtimeApiVscodePort());
            Map<String, String> environment = new LinkedHashMap<>(start.environment());
            environment.putIfAbsent("VSCODE_PORT", String.valueOf(config.runtimeApiVscodePort()));
            program = new SandboxProgram(start.command(), start.workingDir(), environment, start.user(),
                    start.fsGroup(), config.runtimeApiAgentPort(), start.publicBase());
        }
        // the main port is a service of this runtime: its clients talk to it (the action protocol of
        // Dockyard's executor, unguarded by Dockyard's policies, as OpenHands' clients expect it)
        ports.put(ProxyTarget.MAIN, executor ? config.executorPort() : config.runtimeApiAgentPort());
        List<Integer> workPorts = config.runtimeApiWorkPorts();
        if (workPorts.size() > 0) {
            ports.put(WORK_1, workPorts.get(0));
        }
        if (workPorts.size() > 1) {
            ports.put(WORK_2, workPorts.get(1));
        }
        ProvisioningRequest request = new ProvisioningRequest(userId, role, start.sessionId(), agent,
                LlmSettings.NONE.over(agent.llmDefaults()), start.image(), cpus, memoryMb,
                (int) config.sandboxTimeout().toSeconds(), executorEnvironment, ExtraDependencies.NONE,
                executor ? agent.plugins() : List.of(), null, false, null, program, ports, null,
                start.node() == null ? WorkspaceRequest.DEFAULT : new WorkspaceRequest(0, null, null, start.node(), null));
        if (start.runtimeClass() != null) {
            request = request.withIsolation(new SandboxIsolation(start.runtimeClass(), null, List.of()));
        }
        if (start.egress() != null) {
            request = request.withEgress(start.egress());
        }
        if (executor) {
            // another image's program runs no executor: the choice is for Dockyard's alone
            request = request.withExecutorServer(start.executorServer());
        }
        SandboxRuntime started;
        try {
            started = lifecycle.provision(request);
        } catch (ConversationBusyException raced) {
            return raced.existing();
        }
        // registered with a key of its own, which nobody has seen yet: the chosen one replaces it
        return start.serviceKey() == null ? started : journal.useServiceKey(started.id(), start.serviceKey());
    }

    /** The runtime a session has now (the live one), or else its latest. */
    public Optional<SandboxRuntime> session(String userId, String sessionId) {
        Optional<SandboxRuntime> live = journal.live(userId, sessionId);
        if (live.isPresent()) {
            return live;
        }
        return runtimes.list(userId, sessionId, null).stream().findFirst();
    }

    /** The caller's runtime with this id; another user's is as absent as an unknown one. */
    public Optional<SandboxRuntime> runtime(String userId, boolean admin, String runtimeId) {
        return journal.find(runtimeId).filter(r -> admin || r.userId().equals(userId));
    }

    /** The caller's live runtimes started through this API (those of Dockyard's own API are not OpenHands'). */
    public List<SandboxRuntime> live(String userId) {
        return journal.live().stream().filter(r -> r.userId().equals(userId))
                .filter(r -> r.servicePorts().containsKey(ProxyTarget.MAIN)).toList();
    }

    public SandboxRuntime pause(SandboxRuntime runtime) {
        if (runtime.status() == RuntimeStatus.PAUSED || runtime.status() == RuntimeStatus.HIBERNATED) {
            return runtime;
        }
        return lifecycle.pause(runtime.id());
    }

    /**
     * Thaws the runtime and, unless {@code dockyard.runtime-api.new-key-on-resume} is false, hands
     * out a new key: the previous one stops working. A runtime being recovered (its sandbox stopped
     * while READY) is waited for, up to {@link #RECOVERY_WAIT}, and keeps its key.
     */
    public SandboxRuntime resume(SandboxRuntime runtime) {
        if (outages != null && outages.recovering(runtime)) {
            // its URL answered 503 while its stopped sandbox is started again: OpenHands' clients
            // resume, poll until the pod is ready, check it is alive and send again; the resume
            // waits a little for the recovery, and answers the runtime as it is then
            SandboxRuntime now = outages.awaitRecovered(runtime.id(), RECOVERY_WAIT);
            if (now.status() != RuntimeStatus.PAUSED && now.status() != RuntimeStatus.HIBERNATED) {
                return now;
            }
            runtime = now; // found frozen by the recovery: thawed as any paused runtime
        }
        SandboxRuntime resumed = lifecycle.resume(runtime.id());
        boolean thawed = (runtime.status() == RuntimeStatus.PAUSED || runtime.status() == RuntimeStatus.HIBERNATED)
                && resumed.status() == RuntimeStatus.READY;
        return newKeyOnResume && thawed ? journal.renewServiceKey(runtime.id()) : resumed;
    }

    public SandboxRuntime stop(SandboxRuntime runtime) {
        if (runtime.status().isLive()) {
            lifecycle.delete(runtime.id(), false);
        }
        return journal.find(runtime.id()).orElse(runtime);
    }

    /**
     * The image as the engine of the default node knows it, if the caller may use it: an image of
     * another user's is as absent as one that is not there.
     */
    public Optional<RuntimeImageBuilder.ImageInfo> image(String image, String userId, boolean admin) {
        return imageAccess.usable(nodes.defaultNode(), image, userId, admin);
    }
}
