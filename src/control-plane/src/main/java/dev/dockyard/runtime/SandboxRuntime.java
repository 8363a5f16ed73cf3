package dev.dockyard.runtime;

import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.secrets.SealedString;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One sandbox runtime serving one agent conversation: what was asked for, where it runs and where
 * it is in its life cycle.
 *
 * <p>{@code liveConversation} holds "user/conversation" while the runtime is live and null after:
 * a unique constraint on it lets the database, not the application, guarantee one live runtime per
 * conversation. The session key is the executor's secret; it never leaves the control plane.
 * The life cycle's rules are {@link RuntimeStatus}'s; new ids and keys come from {@link RuntimeKeys};
 * structured settings are kept as JSON text by {@code RuntimeSettingsJson}.
 *
 * <p>Longer than the house's 500 lines because it is the runtime table's row: 49 columns, each with
 * its accessor; the behaviour lives in {@link RuntimeStatus} and the services.
 */
@Entity
@Table(name = "DY_RUNTIME",
        uniqueConstraints = @UniqueConstraint(name = "DY_RUNTIME_LIVE_CONVERSATION", columnNames = "LIVE_CONVERSATION"),
        indexes = {@Index(name = "DY_RUNTIME_USER", columnList = "USER_ID"),
                   @Index(name = "DY_RUNTIME_STATUS", columnList = "STATUS")})
public class SandboxRuntime {

    private static final int MAX_MESSAGE = 2000;

    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "CONVERSATION_ID", nullable = false, length = 200)
    private String conversationId;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(name = "LIVE_CONVERSATION", length = 401)
    private String liveConversation;

    @Enumerated(EnumType.STRING)
    @Column(name = "STATUS", nullable = false, length = 32)
    private RuntimeStatus status;

    @Column(name = "STATUS_MESSAGE", length = MAX_MESSAGE)
    private String statusMessage;

    @Column(nullable = false, length = 40)
    private String backend;

    @Column(nullable = false, length = 500)
    private String image;

    @Column(name = "CONTAINER_NAME", nullable = false, length = 100)
    private String containerName;

    @Column(name = "CONTAINER_ID", length = 100)
    private String containerId;

    @Column(name = "EXECUTOR_URL", length = 200)
    private String executorUrl;

    /** The backend node running the sandbox; null (runtimes recorded before nodes existed) is the default node. */
    @Column(name = "NODE", length = 63)
    private String node;

    /** The control plane (dockyard.instance) that provisioned it and reconciles it; null on rows older than the column. */
    @Column(name = "CONTROL_PLANE", length = 100)
    private String controlPlane;

    /** The control-plane process (dockyard.instance.id) that provisions it: another takes over once that one is dead. */
    @Column(name = "PROVISIONER", length = 100)
    private String provisioner;

    @Column(name = "AGENT", length = 100)
    private String agent;

    @Column(name = "LLM_MODEL", length = 500)
    private String llmModel;

    @Column(name = "LLM_BASE_URL", length = 1000)
    private String llmBaseUrl;

    /** Sealed at rest, never in an answer; kept so that a replacement or a refresh can inject it again. */
    @Column(name = "LLM_API_KEY", length = 2000)
    @Convert(converter = SealedString.class)
    private String llmApiKey;

    /**
     * The request's {@code sandbox.env} as a JSON object, sealed at rest (users put tokens there):
     * injected after ready like the rest of the configuration, and kept so that a replacement or a
     * migration gets it again.
     */
    @Column(name = "SANDBOX_ENV", length = 32000)
    @Convert(converter = SealedString.class)
    private String sandboxEnv;

    /** The image the sandbox runs: the requested one, or the runtime image built from it as a base. */
    @Column(name = "RUNTIME_IMAGE", length = 300)
    private String runtimeImage;

    /** The repository cloned into the workspace at provisioning, as JSON (no secret: the token is a credential's name). */
    @Column(name = "REPOSITORY", length = 2000)
    private String repository;

    /** The executor plugins the sandbox starts, comma-separated, or null for none. */
    @Column(name = "PLUGINS", length = 500)
    private String plugins;

    /** Its egress policy as {@link EgressPolicy#encode()} writes it; null (rows of before policies): open. */
    @Column(name = "EGRESS", length = 4000)
    private String egress;

    /** The request's {@code sandbox.extraDeps} as JSON ({"apt": [...], "script": "..."}), or null. */
    @Column(name = "EXTRA_DEPS", length = 12000)
    private String extraDeps;

    /** The runtime this one replaces: it takes the conversation over once READY. */
    @Column(name = "REPLACES", length = 40)
    private String replaces;

    /**
     * What the sandbox runs when it is not Dockyard's executor (see {@link SandboxProgram}), as
     * JSON, sealed at rest (its environment may hold secrets); null for an executor runtime.
     */
    @Column(name = "PROGRAM", length = 32000)
    @Convert(converter = SealedString.class)
    private String program;

    /**
     * Service name → sandbox port for the services beside the main one that the proxy carries
     * (OpenHands' {@code vscode}, {@code work-1}, {@code work-2}), as JSON; null for none.
     */
    @Column(name = "SERVICE_PORTS", length = 1000)
    private String servicePorts;

    /**
     * The key clients present to reach the runtime's services through the control plane's proxy
     * (OpenHands' {@code session_api_key}). Unlike the session key, which the sandbox holds and
     * which never leaves the control plane, it is handed out, and it is replaced on resume: the
     * proxy swaps one for the other, so replacing it takes effect at once without touching the
     * sandbox. Null on rows older than the column: their services are not reachable.
     */
    @Column(name = "SERVICE_KEY", length = 256)
    @Convert(converter = SealedString.class)
    private String serviceKey;

    /**
     * The warm pool whose sandbox this runtime claimed (see {@code dev.dockyard.pool}), or null for
     * a sandbox provisioned for it alone.
     */
    @Column(name = "POOL", length = 63)
    private String pool;

    /** A kept workspace volume the sandbox mounts; null when its workspace is a volume of its own. */
    /** The runtime class, GPUs and extra networks asked for, as JSON; null: the node's defaults. */
    @Column(name = "SANDBOX_ISOLATION", length = 2000)
    private String isolation;

    /**
     * How its sandbox starts the executor ({@link ExecutorServer}'s name): the request's choice, else
     * its node's at provisioning, kept so that the sandbox comes back the same way however it is
     * brought back (revived, migrated, forked). Null for a runtime of another image's program, and
     * on rows older than the column, whose sandboxes ran Liberty, then the only server.
     */
    @Column(name = "EXECUTOR_SERVER", length = 16)
    private String executorServer;

    @Column(name = "WORKSPACE_VOLUME", length = 200)
    private String workspaceVolume;

    /** The (snapshot's) volume its own workspace was copied from; null for a fresh one. */
    @Column(name = "WORKSPACE_COPY_OF", length = 200)
    private String workspaceCopyOf;

    /** The workspace disk's size limit asked for, in MB; null or 0 for the default. */
    @Column(name = "DISK_MB")
    private Integer diskMb;

    @Column(name = "SESSION_KEY", nullable = false, length = 256)
    @Convert(converter = SealedString.class)
    private String sessionKey;

    private double cpus;

    @Column(name = "MEMORY_MB")
    private int memoryMb;

    @Column(name = "TIMEOUT_SECONDS")
    private int timeoutSeconds;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "UPDATED_AT", nullable = false)
    private Instant updatedAt;

    @Column(name = "READY_AT")
    private Instant readyAt;

    /** Never paused or hibernated for idleness (the TTL still applies); null on older rows: false. */
    @Column(name = "KEEP_ALIVE")
    private Boolean keepAlive;

    /** Paused after this long without an action or transfer; 0 or null: never. */
    @Column(name = "IDLE_TIMEOUT_SECONDS")
    private Integer idleTimeoutSeconds;

    /** Stopped and removed this long after it was created; 0 or null: never. */
    @Column(name = "TTL_SECONDS")
    private Integer ttlSeconds;

    /** The last action or transfer as last persisted (coarsely: the live value is kept in memory). */
    @Column(name = "LAST_ACTIVE_AT")
    private Instant lastActiveAt;

    /** Why it is PAUSED or HIBERNATED (null, on rows paused before reasons were kept: on request). */
    @Enumerated(EnumType.STRING)
    @Column(name = "PAUSE_REASON", length = 16)
    private PauseReason pauseReason;

    /**
     * When it ends, as its client set it (E2B's end time: {@code now + timeout} at creation, moved by
     * {@code /timeout} and {@code /connect}; a resume after it gives it more): a point in time at
     * which a READY runtime ends, while a paused one waits for a resume or a delete; the TTL caps its
     * life from creation whatever it does. Null: no end time.
     */
    @Column(name = "ENDS_AT")
    private Instant endsAt;

    /** What happens at {@link #endsAt}; null on rows without an end time: {@link EndAction#STOP}. */
    @Enumerated(EnumType.STRING)
    @Column(name = "AT_END", length = 8)
    private EndAction atEnd;

    /** The template it was asked for by (see {@link RuntimeMetadata}); null for a runtime of Dockyard's own API. */
    @Column(name = "TEMPLATE", length = 300)
    private String template;

    /** The caller's key-values as a JSON object (see {@link RuntimeMetadata}); null for none. */
    @Column(name = "METADATA", length = 16000)
    private String metadata;

    @Version
    private long version;

    protected SandboxRuntime() {
        // JPA
    }

    public SandboxRuntime(String conversationId, String userId, String backend, String image, double cpus,
                          int memoryMb, int timeoutSeconds, Instant now) {
        this(RuntimeKeys.newRuntimeId(), RuntimeKeys.newSessionKey(), conversationId, userId, backend, image, cpus,
                memoryMb, timeoutSeconds, now);
    }

    /**
     * A runtime that takes over a warm sandbox booted before it existed: the sandbox was created
     * under this id (its labels and name say so) and its executor holds this session key.
     */
    public SandboxRuntime(String id, String sessionKey, String conversationId, String userId, String backend,
                          String image, double cpus, int memoryMb, int timeoutSeconds, Instant now) {
        this.id = id;
        this.conversationId = conversationId;
        this.userId = userId;
        this.liveConversation = liveKey(userId, conversationId);
        this.status = RuntimeStatus.STARTING_RUNTIME;
        this.statusMessage = "Provisioning requested";
        this.backend = backend;
        this.image = image;
        // deterministic: the container can be found (and removed) by name even before its id is known
        this.containerName = "dockyard-" + id;
        this.sessionKey = sessionKey;
        this.serviceKey = RuntimeKeys.newSessionKey();
        this.cpus = cpus;
        this.memoryMb = memoryMb;
        this.timeoutSeconds = timeoutSeconds;
        this.createdAt = now;
        this.updatedAt = now;
    }

    public static String liveKey(String userId, String conversationId) {
        return userId + "/" + conversationId;
    }

    /**
     * Moves to {@code next} if the life cycle allows it.
     *
     * @throws IllegalTransitionException otherwise, e.g. when provisioning reports READY for a
     *                                    runtime that was deleted meanwhile
     */
    public StatusChange transitionTo(RuntimeStatus next, String message, Instant now) {
        if (!status.canBecome(next)) {
            throw new IllegalTransitionException(id, status, next);
        }
        status = next;
        statusMessage = clip(message);
        updatedAt = now;
        if (next == RuntimeStatus.READY && readyAt == null) {
            readyAt = now;
        }
        if (next == RuntimeStatus.READY) {
            pauseReason = null;
        }
        if (!next.isLive()) {
            liveConversation = null;
        }
        return new StatusChange(id, next, message, now);
    }

    /**
     * Says why the runtime was asked for (before it is first recorded, e.g. a migration), or what a
     * starting one waits for.
     */
    public void requestedAs(String message) {
        this.statusMessage = clip(message);
    }

    /**
     * A disconnected runtime whose stopped sandbox was started again: its message says so. Not a
     * status change (it stays disconnected until its sandbox answers), and its {@link #updatedAt()}
     * stays the disconnection's, which bounds how long it may stay so.
     */
    public void startedAgain(String message) {
        if (status != RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
            throw new IllegalStateException("runtime " + id + " is " + status + ", not disconnected");
        }
        this.statusMessage = clip(message);
    }

    /** Records the agent the runtime serves and its LLM settings (the key sealed at rest). */
    public void configuredFor(String agentName, LlmSettings llm) {
        this.agent = agentName;
        this.llmModel = llm.model();
        this.llmBaseUrl = llm.baseUrl();
        this.llmApiKey = llm.apiKey();
    }

    /** Records where the sandbox will run (before it is created: the node never changes afterwards). */
    public void assignNode(String nodeName) {
        this.node = nodeName;
    }

    public String node() {
        return node;
    }

    /** Records which control plane owns it: only that one reconciles it against its sandboxes. */
    public void ownedBy(String instance) {
        this.controlPlane = instance;
    }

    /** Records which control-plane process brings it up (a migration's target: the one migrating it). */
    public void provisionedBy(String instanceId) {
        this.provisioner = instanceId;
    }

    /** The process that brings it up; null on rows older than the column. */
    public String provisioner() {
        return provisioner;
    }

    /** Whether {@code instance} reconciles this runtime (rows from before owners were recorded belong to every instance). */
    public boolean isOwnedBy(String instance) {
        return controlPlane == null || controlPlane.equals(instance);
    }

    /** Records the request's own variables for the sandbox (sealed at rest, injected after ready). */
    public void withEnvironment(Map<String, String> environment) {
        this.sandboxEnv = RuntimeSettingsJson.strings(environment);
    }

    /** The request's own variables, for injection only. */
    public Map<String, String> environment() {
        return RuntimeSettingsJson.strings(sandboxEnv);
    }

    public void withRepository(RepositorySpec spec) {
        this.repository = spec == null ? null : spec.toJson();
    }

    public Optional<RepositorySpec> repository() {
        return Optional.ofNullable(repository).map(RepositorySpec::fromJson);
    }

    public void withPlugins(List<String> names) {
        this.plugins = names.isEmpty() ? null : String.join(",", names);
    }

    public List<String> plugins() {
        return plugins == null ? List.of() : List.of(plugins.split(","));
    }

    public void withEgress(EgressPolicy policy) {
        this.egress = policy == null || !policy.ownNetwork() ? null : policy.encode();
    }

    /** Where its sandbox may open connections. */
    public EgressPolicy egress() {
        return EgressPolicy.decode(egress);
    }

    public void runsImage(String image) {
        this.runtimeImage = image;
    }

    public String runtimeImage() {
        return runtimeImage;
    }

    public void withExtraDependencies(ExtraDependencies extra) {
        this.extraDeps = RuntimeSettingsJson.extraDependencies(extra);
    }

    public ExtraDependencies extraDependencies() {
        return RuntimeSettingsJson.extraDependencies(extraDeps);
    }

    public String agent() {
        return agent;
    }

    public String llmModel() {
        return llmModel;
    }

    public String llmBaseUrl() {
        return llmBaseUrl;
    }

    /** The LLM key, for injection only: never in an answer, a log line or an event. */
    public String llmApiKey() {
        return llmApiKey;
    }

    /**
     * Makes this runtime the replacement of {@code old}: it is provisioned beside it without
     * holding the conversation, and takes it over only when READY.
     */
    public void replacing(String oldId) {
        this.replaces = oldId;
        this.liveConversation = null;
    }

    /** Takes the conversation over (after the runtime it replaced stopped, in the same transaction). */
    public void takeConversation() {
        this.liveConversation = liveKey(userId, conversationId);
    }

    public String replaces() {
        return replaces;
    }

    public void placed(String newContainerId) {
        this.containerId = newContainerId;
    }

    public void reachableAt(String url) {
        this.executorUrl = url;
    }

    static String clip(String message) {
        if (message == null || message.length() <= MAX_MESSAGE) {
            return message;
        }
        return message.substring(0, MAX_MESSAGE - 3) + "...";
    }

    public String id() {
        return id;
    }

    public String conversationId() {
        return conversationId;
    }

    public String userId() {
        return userId;
    }

    public RuntimeStatus status() {
        return status;
    }

    public String statusMessage() {
        return statusMessage;
    }

    public String backend() {
        return backend;
    }

    public String image() {
        return image;
    }

    public String containerName() {
        return containerName;
    }

    public String containerId() {
        return containerId;
    }

    public String executorUrl() {
        return executorUrl;
    }

    public String sessionKey() {
        return sessionKey;
    }

    public double cpus() {
        return cpus;
    }

    public int memoryMb() {
        return memoryMb;
    }

    public int timeoutSeconds() {
        return timeoutSeconds;
    }

    /** Where the sandbox's {@code /workspace} lives (see {@link SandboxWorkspace}). */
    public void withWorkspace(SandboxWorkspace workspace) {
        this.workspaceVolume = workspace.kind() == SandboxWorkspace.Kind.MOUNT ? workspace.volume() : null;
        this.workspaceCopyOf = workspace.kind() == SandboxWorkspace.Kind.COPY ? workspace.volume() : null;
        this.diskMb = workspace.diskMb() == 0 ? null : workspace.diskMb();
    }

    public SandboxWorkspace workspace() {
        if (workspaceVolume != null) {
            return SandboxWorkspace.mount(workspaceVolume);
        }
        int mb = diskMb == null ? 0 : diskMb;
        return workspaceCopyOf != null ? SandboxWorkspace.copyOf(workspaceCopyOf, mb) : SandboxWorkspace.fresh(mb);
    }

    public void isolatedAs(SandboxIsolation requested) {
        this.isolation = RuntimeSettingsJson.isolation(requested);
    }

    /** The runtime class, GPUs and extra networks its request asked for. */
    public SandboxIsolation isolation() {
        return RuntimeSettingsJson.isolation(isolation);
    }

    public void startsExecutorOn(ExecutorServer server) {
        this.executorServer = server == null ? null : server.apiName();
    }

    /**
     * How its sandbox starts the executor; empty for a runtime of another image's program, which
     * runs none. A row older than the choice is {@link ExecutorServer#LIBERTY}: what its sandbox ran.
     */
    public Optional<ExecutorServer> executorServer() {
        if (program != null) {
            return Optional.empty();
        }
        return Optional.of(executorServer == null ? ExecutorServer.LIBERTY
                : ExecutorServer.named(executorServer).orElseThrow());
    }

    public void runsProgram(SandboxProgram newProgram) {
        this.program = RuntimeSettingsJson.program(newProgram);
    }

    /** What the sandbox runs when it is not Dockyard's executor. */
    public Optional<SandboxProgram> program() {
        return Optional.ofNullable(RuntimeSettingsJson.program(program));
    }

    public void publishesPorts(Map<String, Integer> ports) {
        this.servicePorts = RuntimeSettingsJson.ports(ports);
    }

    /** The services beside the main one reachable through the proxy: name → sandbox port. */
    public Map<String, Integer> servicePorts() {
        return RuntimeSettingsJson.ports(servicePorts);
    }

    /** The sandbox port of the main service: the program's, or the executor's. */
    public int mainPort(int executorPort) {
        return program().map(SandboxProgram::mainPort).orElse(executorPort);
    }

    public String serviceKey() {
        return serviceKey;
    }

    /** The runtime runs in a sandbox claimed from {@code poolName}. */
    public void claimedFrom(String poolName) {
        this.pool = poolName;
    }

    public Optional<String> pool() {
        return Optional.ofNullable(pool);
    }

    /**
     * The service key its caller chose (a control plane using this one as a remote node hands its
     * own session key for the runtime, so that its executor client reaches the sandbox through
     * this control plane's proxy unchanged).
     */
    public void useServiceKey(String chosen) {
        serviceKey = chosen;
    }

    /** A new service key: the one handed out before stops working. */
    public String renewServiceKey() {
        serviceKey = RuntimeKeys.newSessionKey();
        return serviceKey;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant updatedAt() {
        return updatedAt;
    }

    public Instant readyAt() {
        return readyAt;
    }

    /** Records the request's idle lifecycle: keep alive, idle timeout and TTL (0: none). */
    public void withLifecycle(boolean keepAliveRequested, int idleTimeout, int ttl) {
        this.keepAlive = keepAliveRequested;
        this.idleTimeoutSeconds = idleTimeout;
        this.ttlSeconds = ttl;
    }

    public boolean keepAlive() {
        return Boolean.TRUE.equals(keepAlive);
    }

    public int idleTimeoutSeconds() {
        return idleTimeoutSeconds == null ? 0 : idleTimeoutSeconds;
    }

    public int ttlSeconds() {
        return ttlSeconds == null ? 0 : ttlSeconds;
    }

    public Instant lastActiveAt() {
        return lastActiveAt;
    }

    /** Persists the last activity (coarse steps only: see dev.dockyard.runtime.lifecycle.Activity). */
    public void activeAt(Instant at) {
        if (lastActiveAt == null || at.isAfter(lastActiveAt)) {
            lastActiveAt = at;
        }
    }

    /** Why it is paused or hibernated; a row paused before reasons were kept was paused on request. */
    public PauseReason pauseReason() {
        return pauseReason == null ? PauseReason.REQUEST : pauseReason;
    }

    /**
     * Whether it was paused (or hibernated) on request since it was last READY: a reason recorded
     * as {@link PauseReason#REQUEST}. Unlike {@link #pauseReason()}, a runtime that was READY (no
     * reason recorded) answers false.
     */
    public boolean pausedOnRequest() {
        return pauseReason == PauseReason.REQUEST;
    }

    /**
     * Sets its end time (null: none) and what happens then; the idle lifecycle acts on it
     * ({@code dev.dockyard.runtime.lifecycle.IdleLifecycle}).
     */
    public void endsAt(Instant at, EndAction then) {
        this.endsAt = at;
        this.atEnd = at == null ? null : then;
    }

    /** Moves its end time to {@code at}, earlier or later; a runtime without one gets one that stops it. */
    public void endsAt(Instant at) {
        endsAt(at, atEnd());
    }

    /** Its end time: empty when it has none. */
    public Optional<Instant> endsAt() {
        return Optional.ofNullable(endsAt);
    }

    /** What happens at its end time. */
    public EndAction atEnd() {
        return atEnd == null ? EndAction.STOP : atEnd;
    }

    public void describedAs(RuntimeMetadata described) {
        this.template = described.template();
        this.metadata = RuntimeSettingsJson.strings(described.values());
    }

    /** The template it was asked for by and the caller's key-values. */
    public RuntimeMetadata metadata() {
        return new RuntimeMetadata(template, RuntimeSettingsJson.strings(metadata));
    }

    /** Records why it is being paused (cleared once READY again). */
    public void pausedFor(PauseReason reason) {
        this.pauseReason = reason;
    }
}
