package dev.dockyard.runtime.provisioning;

import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.config.ServiceUrls;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.placement.Placement;
import dev.dockyard.pool.DormantServers;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolKeeper;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.pool.WarmSandbox;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeKeys;
import dev.dockyard.runtime.RuntimeProgress;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusEvents;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import dev.dockyard.workspace.WorkspaceSetup;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Provisions runtimes: records the request, then (on a managed thread, outside any transaction)
 * creates and starts the sandbox and waits for its executor, recording each step's outcome.
 *
 * <p>STARTING_RUNTIME → RUNTIME_STARTED → READY, or ERROR naming the failed step with the sandbox
 * removed. If the runtime is stopped while it is being built, the next status change is refused
 * and the sandbox is removed instead.
 *
 * <p>A migration is a replacement on another backend node whose workspace is copied from the
 * runtime it replaces before the new sandbox starts; the old runtime goes only once the new one is
 * READY. The copy is of one point in time: the migration holds the old runtime's gate (no new
 * action, pause or resume; the running ones finish first) and freezes its sandbox before copying,
 * so nothing written afterwards can be lost. A failed migration thaws it and it serves on.
 *
 * <p>Every status message passes through {@link RuntimeSecrets}: output of the sandbox (a setup
 * script, a crashing executor) may print the secrets that were injected into it.
 */
@ApplicationScoped
public class Provisioner {

    private static final Logger LOG = Logger.getLogger(Provisioner.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    @Inject
    Placement placement;

    @Inject
    BootTurns turns;

    @Inject
    NodeAccess access;

    @Inject
    RuntimeImages images;

    @Inject
    WorkspaceSetup workspaceSetup;

    @Inject
    StatusEvents statusEvents;

    @Inject
    ReadinessProbe readiness;

    @Inject
    ExecutorClient executors;

    @Inject
    Credentials credentials;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    DockyardConfig config;

    @Inject
    ControlPlaneInstance instance;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    Accounts accounts;

    @Inject
    RuntimeGates gates;

    @Inject
    RuntimeSecrets secrets;

    @Inject
    WarmPools pools;

    @Inject
    PoolKeeper keeper;

    @Inject
    Admissions admissions;

    @Inject
    DormantServers dormant;

    @Resource
    ManagedExecutorService executor;

    /** Warm sandboxes tried per request before it is provisioned cold (each lost claim costs one). */
    private static final int MAX_CLAIM_ATTEMPTS = 5;

    /**
     * The least a readiness wait gets after a long creation (a remote node's start): an executor
     * that was running when created still has to answer once.
     */
    private static final Duration MIN_READINESS = Duration.ofSeconds(5);

    /** Where the image keeps the agent's files (DOCKYARD_WORKSPACE): what a migration carries over. */
    static final String WORKSPACE = "/workspace";

    /** Completed when a runtime that is being provisioned settles (READY, ERROR or STOPPED). */
    private final Map<String, CompletableFuture<RuntimeStatus>> settling = new ConcurrentHashMap<>();

    /** The gates held by migrations under way (source id → its hold, released when the migration settles). */
    private final Map<String, RuntimeGates.Pass> migrations = new ConcurrentHashMap<>();

    /** Where a migration's workspace comes from. */
    private record WorkspaceSource(String runtimeId, String node, String sandboxName) {
    }

    /**
     * Records the runtime and starts bringing it up in the background.
     *
     * @throws ConversationBusyException when the conversation already has a live runtime
     * @throws dev.dockyard.placement.NodeForbiddenException when the user may not use the node named
     *         (the request's, or its kept workspace's or snapshot's)
     * @throws dev.dockyard.placement.PlacementRefusedException when no node (or not the named one) can take it now
     */
    public SandboxRuntime provision(ProvisioningRequest request) {
        String named = request.workspace().node();
        if (named != null) {
            // before anything is recorded or claimed: a node the user may not use is not theirs to ask for
            nodes.on(named);
            access.require(named, request.userId(), request.role());
        }
        String node = named != null ? named : nodes.defaultNode();
        try {
            accounts.ensure(request.userId(), request.role());
        } catch (PersistenceException | TransactionalException raced) {
            // a parallel first request created the row: it exists, which is all that matters
        }
        // a pool serves whoever may use its node: the default node's members are not for a user it is closed to
        Optional<SandboxRuntime> warm = access.mayUse(node, request.userId(), request.role())
                ? claimWarm(request, node) : Optional.empty();
        if (warm.isPresent()) {
            return warm.get();
        }
        // cold: placement chooses the node (the named one, else the roomiest healthy one the user may
        // use) and the registration happens under its lock, so that no other provision takes the same room
        SandboxRuntime runtime = placement.place(named, request.memoryMb(), request.userId(), request.role(),
                chosen -> {
                    // asked for what the chosen node cannot give: a 400 naming it, before anything is recorded
                    nodes.requireIsolation(chosen, request.isolation());
                    SandboxRuntime described = describe(request, chosen, null);
                    register(described, request, null, track(described.id()));
                    return described;
                });
        CompletableFuture<RuntimeStatus> settled = settling.get(runtime.id());
        if (!launch(runtime, settled, request.failAt(), null)) {
            return journal.find(runtime.id()).orElse(runtime);
        }
        return runtime;
    }

    /** The runtime a request describes, in its own new sandbox or in a claimed warm one. */
    private SandboxRuntime describe(ProvisioningRequest request, String node, WarmSandbox warm) {
        SandboxRuntime runtime = warm == null
                ? new SandboxRuntime(request.conversationId(), request.userId(), nodes.on(node).name(),
                        request.image(), request.cpus(), request.memoryMb(), request.timeoutSeconds(), clock.instant())
                // a dormant server's key is only its init key: its runtime's session key is new
                : new SandboxRuntime(warm.id(), request.program() == null ? warm.sessionKey()
                        : RuntimeKeys.newSessionKey(), request.conversationId(), request.userId(),
                        nodes.on(node).name(), request.image(), request.cpus(), request.memoryMb(),
                        request.timeoutSeconds(), clock.instant());
        runtime.assignNode(node);
        runtime.ownedBy(config.instance());
        runtime.provisionedBy(instance.id());
        runtime.configuredFor(request.agent().name(), request.llm());
        runtime.withEnvironment(request.environment());
        runtime.withExtraDependencies(request.extraDependencies());
        runtime.withPlugins(request.plugins());
        runtime.withEgress(request.egress());
        runtime.withRepository(request.repository());
        runtime.runsProgram(request.program());
        runtime.startsExecutorOn(executorServer(request, node));
        runtime.isolatedAs(request.isolation());
        runtime.publishesPorts(request.servicePorts());
        runtime.withWorkspace(request.workspace().sandboxWorkspace());
        ProvisioningRequest.Lifecycle lifecycle = request.lifecycle() != null ? request.lifecycle()
                : new ProvisioningRequest.Lifecycle(false, config.idleTimeoutSeconds(), config.ttlSeconds());
        runtime.withLifecycle(lifecycle.keepAlive(), lifecycle.idleTimeoutSeconds(), lifecycle.ttlSeconds());
        if (warm != null) {
            runtime.claimedFrom(warm.pool());
            runtime.placed(warm.containerId());
            runtime.runsImage(warm.runtimeImage());
            runtime.reachableAt(warm.executorUrl());
            runtime.requestedAs("Provisioning requested; claimed warm sandbox " + runtime.containerName()
                    + " from pool '" + warm.pool() + "'");
        }
        return runtime;
    }

    /**
     * How the request's sandbox on {@code node} starts its executor: as the request asks, else as
     * the node's sandboxes do; null for another image's program, which runs no executor.
     */
    private ExecutorServer executorServer(ProvisioningRequest request, String node) {
        if (request.program() != null) {
            return null;
        }
        return request.executorServer() != null ? request.executorServer() : nodes.executorServer(node);
    }

    /**
     * How a registration that claims a warm member ended, when it did not throw: registered, the
     * member taken by another first, or rolled back without the database saying whose the member is.
     */
    private enum Claim {
        REGISTERED, LOST, ROLLED_BACK
    }

    /**
     * Records the runtime (its claim of a warm sandbox with it, for a warm one); the caller stops
     * tracking the runtime on every way out but {@link Claim#REGISTERED}.
     *
     * @throws ConversationBusyException when the conversation has a live runtime
     * @throws dev.dockyard.tenancy.QuotaExceededException when the user's quota is spent
     */
    private Claim register(SandboxRuntime runtime, ProvisioningRequest request, String claimedShape,
                           CompletableFuture<RuntimeStatus> settled) {
        boolean claim = claimedShape != null;
        try {
            ProvisioningJournal.Registration registration = admissions.register(runtime, request.role(),
                    request.replace(), claimedShape);
            if (registration.overQuota() != null) {
                metrics.quotaRefused(registration.overQuota().limit());
                throw registration.overQuota();
            }
            if (registration.existing() != null) {
                throw new ConversationBusyException(registration.existing());
            }
            if (registration.claimLost()) {
                settling.remove(runtime.id(), settled);
                return Claim.LOST;
            }
            return Claim.REGISTERED;
        } catch (PersistenceException | TransactionalException e) {
            settling.remove(runtime.id(), settled);
            // lost a race for the conversation: the unique constraint fired; report the winner
            Optional<SandboxRuntime> winner = journal.live(request.userId(), request.conversationId());
            if (winner.isPresent()) {
                throw new ConversationBusyException(winner.get());
            }
            if (claim) {
                // a lock timeout, a deadlock victim: this claim is off, not the request; the
                // member's row was rolled back with it and is most likely still READY
                return Claim.ROLLED_BACK;
            }
            throw e;
        } catch (RuntimeException e) {
            settling.remove(runtime.id(), settled);
            throw e;
        }
    }

    /**
     * Serves the request from a warm pool if one keeps sandboxes of its settings and has one
     * ready: claims it, injects the runtime's configuration and answers the runtime READY, in the
     * caller's thread (with a repository to clone, the clone goes on in the background). Empty
     * when no pool serves it or none is ready: the caller provisions cold, never an error.
     */
    private Optional<SandboxRuntime> claimWarm(ProvisioningRequest request, String node) {
        SandboxProgram program = request.program();
        // a kept workspace, a snapshot or a disk size of its own is not what warm members have
        // pool members are open sandboxes on the default bridge with the node's defaults: any other
        // egress policy, runtime class, GPUs or networks of its own provisions cold
        if (!request.extraDependencies().isEmpty() || request.failAt() != null || request.egress().ownNetwork()
                || !request.workspace().isFreshDefault() || !request.isolation().isDefault()
                || (program != null && program.fsGroup() != null)) {
            return Optional.empty();
        }
        PoolProgram shapeOfProgram = program == null ? null
                : new PoolProgram(program.command(), program.workingDir(), program.user(), Map.of());
        // a member started on the other executor server is not this request's (the shape holds it)
        ExecutorServer server = executorServer(request, node);
        Optional<String> pool = pools.match(request.image(), request.cpus(), request.memoryMb(), request.plugins(),
                node, shapeOfProgram, server);
        String shape = PoolDefinition.shape(request.image(), request.cpus(), request.memoryMb(), request.plugins(),
                node, shapeOfProgram, server);
        if (pool.isEmpty() || !placement.hasFreeSlot(node)) {
            // a full node provisions cold: placement then finds another node or refuses
            return Optional.empty();
        }
        if (program != null && !DormantServers.canInitialise(program.environment(),
                config.programSessionKeyVariables())) {
            // configuration a dormant server reads only at boot: this one must boot with it
            pools.missed(pool.get());
            return Optional.empty();
        }
        // members whose claim rolled back: handed out still, no keeper pass would ever queue them
        // again (nor count them missing); the next request gets them, this one tries others
        List<WarmSandbox> rolledBack = new ArrayList<>();
        try {
            for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
                Optional<WarmSandbox> candidate = pools.next(pool.get());
                if (candidate.isEmpty()) {
                    return Optional.empty();
                }
                long started = System.nanoTime();
                SandboxRuntime runtime = describe(request, node, candidate.get());
                CompletableFuture<RuntimeStatus> settled = new CompletableFuture<>();
                if (settling.putIfAbsent(runtime.id(), settled) != null) {
                    // claimed by another request of this control plane a moment ago (a stale queue)
                    continue;
                }
                Claim claim;
                try {
                    claim = register(runtime, request, shape, settled);
                } catch (RuntimeException refused) {
                    // a quota, a busy conversation: the sandbox was not claimed and waits for the next request
                    pools.putBack(candidate.get());
                    throw refused;
                }
                if (claim == Claim.ROLLED_BACK) {
                    rolledBack.add(candidate.get());
                }
                if (claim != Claim.REGISTERED) {
                    continue;
                }
                pools.claimed(candidate.get());
                keeper.tendSoon();
                return Optional.of(warmUp(runtime, candidate.get(), settled, started));
            }
            return Optional.empty();
        } finally {
            // first in line again, in their order (a member taken meanwhile costs a claim a retry)
            for (int i = rolledBack.size() - 1; i >= 0; i--) {
                pools.putBack(rolledBack.get(i));
            }
        }
    }

    /**
     * A claimed warm sandbox gets its runtime's configuration. Should its executor not take it
     * (the sandbox died since the keeper last looked), the sandbox goes and the runtime is
     * provisioned cold, still STARTING_RUNTIME: the caller sees a slower runtime, not an error.
     */
    private SandboxRuntime warmUp(SandboxRuntime runtime, WarmSandbox warm, CompletableFuture<RuntimeStatus> settled,
                                  long started) {
        try {
            return warmUpNow(runtime, warm, settled, started);
        } catch (RuntimeException e) {
            // whatever went wrong, the runtime must not stay "in flight" where the reconciler never looks
            removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            settle(runtime.id(), settled, fail(runtime.id(), "Provisioning failed claiming a warm sandbox: "
                    + secrets.redact(runtime, e.toString())), null);
            return journal.find(runtime.id()).orElse(runtime);
        }
    }

    private SandboxRuntime warmUpNow(SandboxRuntime runtime, WarmSandbox warm,
                                     CompletableFuture<RuntimeStatus> settled, long started) {
        String id = runtime.id();
        RuntimeBackend backend = nodes.on(runtime.node());
        URI endpoint = URI.create(warm.executorUrl());
        Optional<SandboxProgram> program = runtime.program();
        SandboxConfiguration configuration = null;
        try {
            if (program.isEmpty()) {
                configuration = configurations.of(runtime, credentials.resolveAll(runtime.userId()));
                secrets.remember(id, configuration.secretValues());
            } else {
                secrets.remember(id, RuntimeSecrets.secretLooking(program.get().environment()));
            }
        } catch (RuntimeException e) {
            removeQuietly(backend, runtime.containerName());
            settle(id, settled, fail(id, "Provisioning failed at step '" + ProvisioningStep.CREDENTIALS.label()
                    + "': " + e.getMessage()), null);
            return journal.find(id).orElse(runtime);
        }
        try {
            // the warm sandbox's keys go only to its own executor (a local one's port may have changed hands)
            if (!backend.listensAt(runtime.containerName(), endpoint)) {
                throw new BackendException("its executor no longer listens at " + endpoint);
            }
            if (program.isEmpty()) {
                executors.configure(endpoint, runtime.sessionKey(), configuration);
            } else {
                SandboxProgram p = program.get();
                Map<String, String> environment = programEnvironment(runtime, p);
                dormant.initialize(endpoint, warm.sessionKey(), runtime.sessionKey(), environment,
                        p.publicBase() == null ? null : ServiceUrls.runtimeUrl(p.publicBase(), runtime.id()),
                        config.programSessionKeyVariables());
                // a restart (an engine's) boots the server from its environment file: from now on the
                // runtime's own, not dormant, not the init key's (in the background: the answer waits not)
                rewriteEnvironmentLater(backend, runtime, environment);
            }
        } catch (RuntimeException e) {
            LOG.warning("Warm sandbox " + runtime.containerName() + " of pool '" + warm.pool()
                    + "' did not take its configuration (" + secrets.redact(runtime, e.toString())
                    + "); provisioning runtime " + id + " cold");
            removeQuietly(backend, runtime.containerName());
            launch(runtime, settled, null, null);
            return journal.find(id).orElse(runtime);
        }
        long configured = System.nanoTime();
        String startedMessage = "Warm sandbox from pool '" + warm.pool() + "' (ready since " + warm.readyAt()
                + "); " + (program.isEmpty() ? "configuration injected" : "its dormant server initialised") + " in "
                + (configured - started) / 1_000_000 + " ms";
        if (runtime.repository().isPresent()) {
            try {
                executor.execute(() -> {
                    RuntimeStatus outcome = RuntimeStatus.ERROR;
                    try {
                        outcome = cloneThenReady(runtime, endpoint, startedMessage, started);
                    } finally {
                        settle(id, settled, outcome, null);
                    }
                });
            } catch (RejectedExecutionException e) {
                removeQuietly(backend, runtime.containerName());
                settle(id, settled, fail(id, "Provisioning could not go on: the control plane has no thread for "
                        + "it now (it is shutting down or saturated); try again"), null);
            }
            return journal.find(id).orElse(runtime);
        }
        RuntimeStatus outcome = RuntimeStatus.ERROR;
        try {
            String readyMessage = "Ready in " + (System.nanoTime() - started) / 1_000_000 + " ms from pool '"
                    + warm.pool() + "'";
            LockConflicts.retried(() -> journal.startedAndReady(id, startedMessage, readyMessage))
                    .ifPresent(old -> removeQuietly(nodes.on(old.node()), old.containerName()));
            outcome = RuntimeStatus.READY;
            metrics.ready(DockyardMetrics.ReadyPath.WARM, Duration.ofNanos(System.nanoTime() - started));
        } catch (IllegalTransitionException e) {
            removeQuietly(backend, runtime.containerName());
            outcome = e.from();
        } catch (RuntimeException e) {
            removeQuietly(backend, runtime.containerName());
            outcome = fail(id, "Provisioning failed at step '" + ProvisioningStep.RECORD.label() + "': " + e);
        } finally {
            settle(id, settled, outcome, null);
        }
        return journal.find(id).orElse(runtime);
    }

    private void rewriteEnvironmentLater(RuntimeBackend backend, SandboxRuntime runtime,
                                         Map<String, String> environment) {
        Runnable rewrite = () -> {
            try {
                backend.rewriteEnvironment(runtime.containerName(), environment,
                        runtime.program().map(SandboxProgram::user).orElse(null));
            } catch (RuntimeException e) {
                LOG.warning("Could not rewrite the environment file of " + runtime.containerName()
                        + " after its init; a restart of its sandbox would find it dormant: "
                        + secrets.redact(runtime, e.getMessage()));
            }
        };
        try {
            executor.execute(rewrite);
        } catch (RejectedExecutionException e) {
            rewrite.run();
        }
    }

    /** A warm runtime with a repository: cloned before it is READY, as after a cold boot. */
    private RuntimeStatus cloneThenReady(SandboxRuntime runtime, URI endpoint, String startedMessage, long started) {
        String id = runtime.id();
        try {
            workspaceSetup.prepare(endpoint, runtime.sessionKey(), runtime.repository().orElseThrow());
            String readyMessage = "Ready in " + (System.nanoTime() - started) / 1_000_000 + " ms from pool '"
                    + runtime.pool().orElse("?") + "' (repository cloned)";
            LockConflicts.retried(() -> journal.startedAndReady(id, startedMessage, readyMessage))
                    .ifPresent(old -> removeQuietly(nodes.on(old.node()), old.containerName()));
            metrics.ready(DockyardMetrics.ReadyPath.WARM, Duration.ofNanos(System.nanoTime() - started));
            return RuntimeStatus.READY;
        } catch (IllegalTransitionException e) {
            removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            return e.from();
        } catch (RuntimeException e) {
            removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            return fail(id, "Provisioning failed at step '" + ProvisioningStep.REPOSITORY.label() + "': "
                    + secrets.redact(runtime, e.getMessage()));
        }
    }

    /**
     * Moves a READY runtime to {@code targetNode} (null: the first other node): a new runtime with
     * the same settings, its workspace copied from the old one, takes the conversation over once
     * READY; if it fails, the old one serves on. Returns the new runtime, being provisioned.
     *
     * <p>The target must be open ({@link NodeAccess}) to the runtime's owner, who runs there from then
     * on, as well as to the caller; with none named, the first other node open to both.
     *
     * @throws BackendNodes.UnknownNodeException when the target is not a configured node
     * @throws dev.dockyard.placement.NodeForbiddenException when the owner or the caller may not use the target
     * @throws MigrationRefusedException          when the runtime cannot be migrated now
     */
    public SandboxRuntime migrate(String runtimeId, String targetNode, ProvisioningStep failAt, String callerId,
                                  Role callerRole) {
        SandboxRuntime source = journal.find(runtimeId)
                .orElseThrow(() -> new IllegalArgumentException("no runtime " + runtimeId));
        String sourceNode = nodes.named(source.node());
        // the owner's role as their account has it now (an admin's runtime may go where only admins may)
        Role ownerRole = source.userId().equals(callerId) ? callerRole
                : accounts.find(source.userId()).map(UserAccount::role).orElse(Role.USER);
        List<String> others = nodes.names().stream().filter(n -> !n.equals(sourceNode)).toList();
        if (targetNode == null && others.isEmpty()) {
            throw new MigrationRefusedException("there is no other backend node to migrate to (dockyard.nodes: "
                    + nodes.names() + ")");
        }
        String target = targetNode != null ? targetNode : others.stream()
                .filter(n -> access.mayUse(n, source.userId(), ownerRole) && access.mayUse(n, callerId, callerRole))
                .findFirst()
                .orElseThrow(() -> new MigrationRefusedException("there is no other backend node to migrate to "
                        + "that is open to user '" + source.userId() + "'"));
        RuntimeBackend backend = nodes.on(target);
        access.require(target, callerId, callerRole);
        access.require(target, source.userId(), ownerRole);
        if (target.equals(sourceNode)) {
            throw new MigrationRefusedException("runtime " + runtimeId + " already runs on node '" + target + "'");
        }
        SandboxRuntime migrated = new SandboxRuntime(source.conversationId(), source.userId(), backend.name(),
                source.image(), source.cpus(), source.memoryMb(), source.timeoutSeconds(), clock.instant());
        migrated.assignNode(target);
        migrated.ownedBy(config.instance());
        migrated.provisionedBy(instance.id());
        migrated.configuredFor(source.agent(), new LlmSettings(source.llmModel(),
                source.llmBaseUrl(), source.llmApiKey()));
        migrated.withEnvironment(source.environment());
        migrated.withExtraDependencies(source.extraDependencies());
        migrated.withPlugins(source.plugins());
        migrated.withEgress(source.egress());
        source.repository().ifPresent(migrated::withRepository);
        migrated.runsProgram(source.program().orElse(null));
        // the executor server it was given, whatever the target node's setting: it moves, it does not change
        migrated.startsExecutorOn(source.executorServer().orElse(null));
        migrated.isolatedAs(source.isolation());
        migrated.publishesPorts(source.servicePorts());
        // the TTL caps the conversation's runtime, moved or not: what is left of it moves along
        long lived = Duration.between(source.createdAt(), clock.instant()).toSeconds();
        migrated.withLifecycle(source.keepAlive(), source.idleTimeoutSeconds(),
                source.ttlSeconds() == 0 ? 0 : (int) Math.max(1, source.ttlSeconds() - lived));
        // a fresh volume of the same size, filled by the copy below (a kept one it mounted stays behind)
        migrated.withWorkspace(SandboxWorkspace.fresh(source.workspace().diskMb()));
        RuntimeGates.Pass hold;
        try {
            // from here no action, pause or resume reaches the source; the running actions have finished
            hold = gates.beginMigration(runtimeId, config.migrationDrainTimeout());
        } catch (RuntimeGates.RuntimeBusyException e) {
            throw new MigrationRefusedException(e.getMessage());
        }
        migrations.put(runtimeId, hold);
        CompletableFuture<RuntimeStatus> settled = track(migrated.id());
        String refused;
        try {
            // the target must be healthy and have room, like any node a runtime is placed on
            refused = placement.place(target, migrated.memoryMb(), source.userId(), ownerRole, chosen -> {
                // the target must offer the runtime class, GPUs and networks the runtime was given
                nodes.requireIsolation(chosen, migrated.isolation());
                return journal.registerMigration(migrated, runtimeId, sourceNode, chosen);
            });
        } catch (RuntimeException e) {
            forget(migrated.id(), runtimeId);
            throw e;
        }
        if (refused != null) {
            forget(migrated.id(), runtimeId);
            throw new MigrationRefusedException(refused);
        }
        if (!launch(migrated, settled, failAt, new WorkspaceSource(runtimeId, sourceNode, source.containerName()))) {
            return journal.find(migrated.id()).orElse(migrated);
        }
        return migrated;
    }

    /** A migration that was not registered is neither in flight nor under way. */
    private void forget(String migratedId, String sourceId) {
        settling.remove(migratedId);
        releaseMigration(sourceId);
    }

    private void releaseMigration(String sourceId) {
        RuntimeGates.Pass hold = migrations.remove(sourceId);
        if (hold != null) {
            hold.close();
        }
    }

    /** Whether the runtime's workspace is being carried to another node right now (it takes no actions). */
    public boolean isMigrating(String runtimeId) {
        return gates.isMigrating(runtimeId);
    }

    /** In flight before it is visible: a reconciler pass in between must not take it for an orphan. */
    private CompletableFuture<RuntimeStatus> track(String runtimeId) {
        CompletableFuture<RuntimeStatus> settled = new CompletableFuture<>();
        settling.put(runtimeId, settled);
        return settled;
    }

    /**
     * Brings the runtime up on a managed thread. Returns false when no thread would take the work
     * (the executor is shut down or saturated): the runtime is then ERROR at once, not left
     * "in flight" for ever where the reconciler never touches it.
     */
    private boolean launch(SandboxRuntime runtime, CompletableFuture<RuntimeStatus> settled, ProvisioningStep failAt,
                           WorkspaceSource workspace) {
        AtomicBoolean told = new AtomicBoolean();
        Consumer<RuntimeStatus> done = outcome -> {
            if (told.compareAndSet(false, true)) {
                settle(runtime.id(), settled, outcome, workspace);
            }
        };
        try {
            executor.execute(() -> {
                try {
                    bringUp(runtime, nodes.on(runtime.node()), Duration.ofSeconds(runtime.timeoutSeconds()), failAt,
                            workspace, done);
                } catch (RuntimeException | Error e) {
                    done.accept(RuntimeStatus.ERROR);
                    throw e;
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            LOG.warning("Provisioning of " + runtime.id() + " could not be scheduled: " + e.getMessage());
            done.accept(fail(runtime.id(), "Provisioning could not start: the control plane has no "
                    + "thread for it now (it is shutting down or saturated); try again"));
            return false;
        }
    }

    /** The runtime is no longer in flight; a migration that did not succeed thaws its source first. */
    private void settle(String runtimeId, CompletableFuture<RuntimeStatus> settled, RuntimeStatus outcome,
                        WorkspaceSource workspace) {
        settling.remove(runtimeId);
        if (outcome != RuntimeStatus.READY) {
            secrets.forget(runtimeId);
        }
        if (workspace != null) {
            if (outcome != RuntimeStatus.READY) {
                thawQuietly(workspace);
            }
            releaseMigration(workspace.runtimeId());
        }
        settled.complete(outcome);
    }

    private void thawQuietly(WorkspaceSource workspace) {
        try {
            nodes.on(workspace.node()).unpause(workspace.sandboxName());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not thaw sandbox " + workspace.sandboxName() + " after a failed migration",
                    e);
        }
    }

    /** Whether this control plane is bringing the runtime up right now. */
    public boolean isInFlight(String runtimeId) {
        return settling.containsKey(runtimeId);
    }

    /**
     * Completes when a runtime that is being provisioned has settled, its hand-over included (the
     * sandbox of a runtime it replaced removed): for callers that must not hold a thread meanwhile.
     * Empty when nothing here is provisioning it.
     */
    public Optional<CompletionStage<RuntimeStatus>> whenSettled(String runtimeId) {
        return Optional.ofNullable(settling.get(runtimeId)).map(CompletableFuture::minimalCompletionStage);
    }

    /**
     * Brings the runtime up in two halves: its configuration and image on the calling thread, then,
     * once its node gives it a turn to boot ({@link BootTurns}), its sandbox on a managed thread;
     * no thread is held while it waits in line. {@code done} is told the outcome once.
     */
    private void bringUp(SandboxRuntime runtime, RuntimeBackend backend, Duration timeout, ProvisioningStep failAt,
                         WorkspaceSource workspace, Consumer<RuntimeStatus> done) {
        ColdBoot boot = new ColdBoot(runtime, backend, timeout, failAt, workspace);
        boolean[] waited = new boolean[1];
        long since;
        try {
            boot.prepare();
            boot.step = ProvisioningStep.TURN;
            boot.timer.inject(boot.step);
            since = System.nanoTime();
        } catch (RuntimeException e) {
            done.accept(boot.ended(e));
            return;
        }
        try {
            // the node boots a bounded number of sandboxes at once; this one's limits count from its turn
            turns.whenTurn(runtime.node(), BootTurns.Line.REQUEST, (booting, ahead) -> {
                waited[0] = true;
                waitingForTurn(runtime, booting, ahead);
            }, executor, turn -> {
                RuntimeStatus outcome = RuntimeStatus.ERROR;
                try {
                    boot.timer.took(ProvisioningStep.TURN, System.nanoTime() - since);
                    outcome = boot.withTurn(turn, waited[0]);
                } finally {
                    done.accept(outcome);
                }
            }, refused -> done.accept(boot.ended(new BackendException("the control plane could not go on with "
                    + "the boot at its turn (" + refused + ")"))));
        } catch (RuntimeException e) {
            // no turn taken (e.g. a malformed max-concurrent-boots of the node): ERROR with the cause
            done.accept(boot.ended(e));
        }
    }

    /** The runtime's message while it waits for a turn to boot: how many boot and wait there. */
    private void waitingForTurn(SandboxRuntime runtime, int booting, int ahead) {
        String message = "Waiting for a turn to boot on node '" + runtime.node() + "': " + booting
                + (booting == 1 ? " sandbox is" : " sandboxes are") + " booting there, " + ahead
                + " waiting ahead of this one";
        try {
            journal.update(runtime.id(), r -> {
                // a runtime deleted meanwhile keeps the message of its end
                if (r.status().isStarting()) {
                    r.requestedAs(message);
                }
            });
        } catch (RuntimeException e) {
            // only a message: the wait goes on
            LOG.fine("Could not record the wait of " + runtime.id() + ": " + e);
        }
    }

    /** One cold provisioning (or a migration's new sandbox) on its way up: its steps and what they made. */
    private final class ColdBoot {
        final SandboxRuntime runtime;
        final RuntimeBackend backend;
        final Duration timeout;
        final WorkspaceSource workspace;
        final ProvisioningStep failAt;
        final StepTimer timer;
        final Optional<SandboxProgram> program;
        ProvisioningStep step = ProvisioningStep.CREDENTIALS;
        SandboxConfiguration configuration;
        SandboxSpec spec;

        ColdBoot(SandboxRuntime runtime, RuntimeBackend backend, Duration timeout, ProvisioningStep failAt,
                 WorkspaceSource workspace) {
            this.runtime = runtime;
            this.backend = backend;
            this.timeout = timeout;
            this.workspace = workspace;
            this.failAt = failAt;
            this.timer = new StepTimer(failAt, metrics);
            this.program = runtime.program();
        }

        /** Before the turn: the configuration (with its credentials) and the image, built if need be. */
        void prepare() {
            String id = runtime.id();
            RuntimeImages.Resolution image;
            if (program.isEmpty()) {
                configuration = timer.time(step, () -> configurations.of(runtime,
                        credentials.resolveAll(runtime.userId())));
                secrets.remember(id, configuration.secretValues());
                step = ProvisioningStep.IMAGE;
                image = timer.time(step, () -> images.resolve(runtime.node(), runtime.image(),
                        runtime.extraDependencies(), build -> building(id, build)));
            } else {
                // its own server: no Dockyard configuration to resolve and inject, no image to build
                secrets.remember(id, RuntimeSecrets.secretLooking(program.get().environment()));
                step = ProvisioningStep.IMAGE;
                image = timer.time(step, () -> present(runtime));
            }
            if (image.build() != null) {
                journal.transition(id, RuntimeStatus.STARTING_RUNTIME, "Runtime image " + image.image() + " built ("
                        + image.build().path().name().toLowerCase() + " path); starting the sandbox");
            }
            spec = spec(runtime, image.image(), program.orElse(null));
        }

        /** With the turn: the sandbox created, started, ready, configured and recorded READY. */
        RuntimeStatus withTurn(BootTurns.Turn turn, boolean waited) {
            String id = runtime.id();
            try {
                if (waited) {
                    // deleted while it waited: its turn goes to the next one rather than to a sandbox nobody wants
                    RuntimeStatus now = journal.find(id).map(SandboxRuntime::status).orElse(RuntimeStatus.STOPPED);
                    if (!now.isStarting()) {
                        throw new IllegalTransitionException(id, now, RuntimeStatus.RUNTIME_STARTED);
                    }
                }
                step = ProvisioningStep.CREATE;
                long[] awaited = new long[1];
                String containerId = timer.time(step, () -> {
                    String created = backend.create(spec);
                    // a remote node builds and boots it on its own: created is when it runs there
                    long since = System.nanoTime();
                    backend.awaitRunning(spec.name(), timeout);
                    awaited[0] = System.nanoTime() - since;
                    return created;
                });
                // the wait for readiness gets what that wait left of the runtime's timeout (in whole seconds)
                Duration readinessTimeout = timeout.minusSeconds(Duration.ofNanos(awaited[0]).toSeconds());
                long workspaceBytes = 0;
                if (workspace != null) {
                    step = ProvisioningStep.WORKSPACE;
                    workspaceBytes = timer.time(step, () -> copyWorkspace(workspace, backend, spec.name()));
                }
                step = ProvisioningStep.START;
                URI endpoint = timer.time(step, () -> backend.start(spec.name(), spec.executorPort()));
                step = ProvisioningStep.RECORD;
                timer.time(step, () -> journal.transition(id, RuntimeStatus.RUNTIME_STARTED,
                        "Container started; waiting for the executor", r -> {
                            // a warm sandbox that failed its claim is gone: this runtime's sandbox is its own
                            r.claimedFrom(null);
                            r.placed(containerId);
                            r.runsImage(spec.image());
                            r.reachableAt(endpoint.toString());
                        }, backend, spec.name(), failAt == ProvisioningStep.RECORD));
                step = ProvisioningStep.READINESS;
                ReadinessAttempt attempt = new ReadinessAttempt(backend, spec.name(), endpoint, spec.sessionKey(),
                        readinessTimeout.compareTo(MIN_READINESS) < 0 ? MIN_READINESS : readinessTimeout, clock,
                        program.isPresent());
                timer.time(step, () -> {
                    readiness.probe(attempt);
                    return null;
                });
                // booted, the costly part of a sandbox's start: the next one may go while this one's
                // configuration, clone and setup script run (its boot CPU allowance lasts until LIMITS)
                turn.close();
                if (program.isEmpty()) {
                    step = ProvisioningStep.INJECT;
                    timer.time(step, () -> {
                        executors.configure(endpoint, spec.sessionKey(), configuration);
                        return null;
                    });
                    if (workspace == null && runtime.repository().isPresent()) {
                        // a migration carries the workspace over: the repository is cloned once, at first provisioning
                        step = ProvisioningStep.REPOSITORY;
                        timer.time(step, () -> {
                            workspaceSetup.prepare(endpoint, spec.sessionKey(), runtime.repository().get());
                            return null;
                        });
                    }
                }
                step = ProvisioningStep.LIMITS;
                timer.time(step, () -> {
                    backend.settle(spec.name(), spec.cpus());
                    return null;
                });
                String message = "Ready " + timer.summary() + (workspace == null ? "" : "; migrated from node '"
                        + workspace.node() + "' with a workspace of " + workspaceBytes + " bytes");
                step = ProvisioningStep.RECORD;
                LockConflicts.retried(() -> journal.readyAndTakeOver(id, message))
                        .ifPresent(old -> removeQuietly(nodes.on(old.node()), old.containerName()));
                metrics.ready(workspace == null ? DockyardMetrics.ReadyPath.COLD : DockyardMetrics.ReadyPath.MIGRATION,
                        timer.elapsed());
                return RuntimeStatus.READY;
            } catch (RuntimeException e) {
                return ended(e);
            }
        }

        /** What a failure at the current step leaves: the sandbox removed, the runtime ERROR (or as a stop left it). */
        RuntimeStatus ended(RuntimeException failure) {
            String id = runtime.id();
            String name = runtime.containerName();
            if (failure instanceof IllegalTransitionException e) {
                // stopped while being built: what was built must go, the status stays as the stop left it
                LOG.info("Runtime " + id + " was stopped during provisioning; removing its sandbox");
                removeQuietly(backend, name);
                return e.from();
            }
            if (failure instanceof StepFailedException e) {
                removeQuietly(backend, name);
                return fail(id, e.getMessage());
            }
            // the exception's text may quote the sandbox's output: only its redacted form is logged
            LOG.warning("Provisioning " + id + " failed unexpectedly at step " + step.label() + ": "
                    + secrets.redact(runtime, failure.toString()));
            removeQuietly(backend, name);
            return fail(id, "Provisioning failed at step '" + step.label() + "': " + failure);
        }
    }

    /** What the backend creates for the runtime: Dockyard's executor, or the program of another image. */
    private SandboxSpec spec(SandboxRuntime runtime, String image, SandboxProgram program) {
        List<Integer> servicePorts = List.copyOf(runtime.servicePorts().values());
        if (program == null) {
            return new SandboxSpec(runtime.id(), runtime.conversationId(), config.instance(), runtime.containerName(),
                    image, runtime.cpus(), config.sandboxBootCpus(), runtime.memoryMb(), config.sandboxPidsLimit(),
                    config.sandboxUser(), config.executorPort(), runtime.sessionKey(), runtime.plugins(), null,
                    servicePorts).withWorkspace(runtime.workspace()).withEgress(runtime.egress())
                    .withIsolation(runtime.isolation()).withExecutorServer(runtime.executorServer().orElse(null));
        }
        Map<String, String> environment = programEnvironment(runtime, program);
        SandboxProcess process = new SandboxProcess(program.command(), program.workingDir(), environment,
                program.fsGroup());
        // an image's own server gets no boot CPU allowance: the steady limit from the start
        return new SandboxSpec(runtime.id(), runtime.conversationId(), config.instance(), runtime.containerName(),
                image, runtime.cpus(), runtime.cpus(), runtime.memoryMb(), config.sandboxPidsLimit(), program.user(),
                program.mainPort(), runtime.sessionKey(), List.of(), process, servicePorts)
                .withEgress(runtime.egress()).withIsolation(runtime.isolation());
    }

    /** The environment of a runtime's own program: the client's, with its key and where it is reached. */
    private Map<String, String> programEnvironment(SandboxRuntime runtime, SandboxProgram program) {
        Map<String, String> environment = new LinkedHashMap<>(program.environment());
        // the program's own server checks its clients' key: the sandbox's key, which the proxy puts
        // in place of the service key clients hold (see dev.dockyard.proxy)
        for (String variable : config.programSessionKeyVariables()) {
            environment.put(variable, runtime.sessionKey());
        }
        environment.put("RUNTIME_ID", runtime.id());
        if (program.publicBase() != null) {
            // OpenHands' servers build their own links from these (VS Code serves under its path)
            environment.putIfAbsent("RUNTIME_URL", ServiceUrls.runtimeUrl(program.publicBase(), runtime.id()));
            environment.putIfAbsent("OH_VSCODE_BASE_PATH", "/" + runtime.id() + "/vscode");
        }
        return environment;
    }

    /** The image of a runtime that runs its own program, as it is: it must be on the node already. */
    private RuntimeImages.Resolution present(SandboxRuntime runtime) {
        if (images.inspect(runtime.node(), runtime.image()).isEmpty()) {
            throw new BackendException("image '" + runtime.image() + "' is not on node '" + runtime.node()
                    + "': Dockyard pulls from no registry; build or load it there first");
        }
        return new RuntimeImages.Resolution(runtime.image(), null);
    }

    /**
     * A runtime image is being built for this runtime: BUILDING_RUNTIME, and the build's output
     * goes out as progress on the runtime's event stream until the build ends.
     */
    private void building(String runtimeId, ImageBuild build) {
        journal.transition(runtimeId, RuntimeStatus.BUILDING_RUNTIME, "Building runtime image "
                + build.tags().image(build.tags().source()) + " from " + build.baseImage() + " (build " + build.id() + ")");
        build.follow(line -> statusEvents.progress(new RuntimeProgress(runtimeId, build.id(),
                build.step(), build.steps(), line)));
    }

    /**
     * Freezes the old sandbox (it stays frozen until the migration settles: taken over, or thawed
     * if it fails) and streams its workspace into the new, created one (engine to engine, nothing
     * buffered here); owners and modes are kept. Returns the bytes carried.
     */
    private long copyWorkspace(WorkspaceSource source, RuntimeBackend target, String sandboxName) {
        nodes.on(source.node()).pause(source.sandboxName());
        // the workspace's contents into the workspace itself, not through "/": a read-only root
        // refuses any unpacking outside its volumes
        try (InputStream archive = nodes.on(source.node()).archive(source.sandboxName(), WORKSPACE + "/.");
             CountingInputStream counted = new CountingInputStream(archive)) {
            target.restore(sandboxName, WORKSPACE, counted);
            return counted.count();
        } catch (IOException e) {
            throw new BackendException("the workspace archive broke off: " + e.getMessage(), e);
        }
    }

    private RuntimeStatus fail(String id, String message) {
        try {
            journal.transition(id, RuntimeStatus.ERROR, message);
            return RuntimeStatus.ERROR;
        } catch (IllegalTransitionException e) {
            return e.from();
        } catch (RuntimeException e) {
            // the database is failing too: the reconciler will find the runtime stuck and fail it
            LOG.log(Level.SEVERE, "Could not record the failure of runtime " + id + ": " + secrets.redact(id, message)
                    + " (" + e + ")");
            return RuntimeStatus.ERROR;
        }
    }

    /**
     * Stops a runtime for good: records STOPPED first, so provisioning still at work on it backs
     * off, then removes its sandbox.
     */
    public SandboxRuntime stop(String runtimeId) {
        SandboxRuntime runtime = journal.stop(runtimeId, "Stopped on request");
        nodes.on(runtime.node()).remove(runtime.containerName());
        return runtime;
    }

    /**
     * Stops a runtime for good but keeps its workspace as {@code keptVolume} (labelled with
     * {@code labels}); returns the kept volume (null when it had none).
     */
    public String stopKeepingWorkspace(String runtimeId, String keptVolume, Map<String, String> labels) {
        SandboxRuntime runtime = journal.stop(runtimeId, "Stopped on request; workspace kept");
        return nodes.on(runtime.node()).keepWorkspace(runtime.containerName(), keptVolume, labels);
    }

    private void removeQuietly(RuntimeBackend backend, String name) {
        try {
            backend.remove(name);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove sandbox " + name + "; the reconciler will", e);
        }
    }
}
