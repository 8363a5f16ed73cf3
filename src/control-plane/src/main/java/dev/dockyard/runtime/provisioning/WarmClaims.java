package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.config.ServiceUrls;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.placement.Placement;
import dev.dockyard.pool.DormantServers;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolKeeper;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.pool.WarmSandbox;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.workspace.WorkspaceSetup;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * Warm claims: a request served from a warm pool ({@link WarmPools}), whose members are sandboxes
 * booted ahead of any request and kept READY by the {@link PoolKeeper}. A request of a pool's
 * settings claims a member (its row deleted in the transaction that registers the runtime, so two
 * requests never get the same one), the member gets the runtime's configuration (or, for another
 * image's dormant server, its init) and the runtime is READY in the caller's thread; with a
 * repository to clone, the clone goes on in the background first.
 *
 * <p>A claim lost to another request, or rolled back by the database, costs a retry with the next
 * member; a member that does not take its configuration (it died since the keeper last looked) is
 * removed and its runtime provisioned cold ({@link ColdProvisioning}), so the caller sees a slower
 * runtime, not an error. A request no pool serves is answered empty and provisioned cold.
 */
@ApplicationScoped
public class WarmClaims {

    private static final Logger LOG = Logger.getLogger(WarmClaims.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeRegistrations registrations;

    @Inject
    RuntimesInFlight inFlight;

    @Inject
    ProvisioningCleanup cleanup;

    @Inject
    ColdProvisioning cold;

    @Inject
    BackendNodes nodes;

    @Inject
    Placement placement;

    @Inject
    WarmPools pools;

    @Inject
    PoolKeeper keeper;

    @Inject
    DormantServers dormant;

    @Inject
    WorkspaceSetup workspaceSetup;

    @Inject
    ExecutorClient executors;

    @Inject
    Credentials credentials;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    DockyardConfig config;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    RuntimeSecrets secrets;

    @Resource
    ManagedExecutorService executor;

    /** Warm sandboxes tried per request before it is provisioned cold (each lost claim costs one). */
    private static final int MAX_CLAIM_ATTEMPTS = 5;

    /**
     * Serves the request from a warm pool if one keeps sandboxes of its settings and has one
     * ready: claims it, injects the runtime's configuration and answers the runtime READY, in the
     * caller's thread (with a repository to clone, the clone goes on in the background). Empty
     * when no pool serves it or none is ready: the caller provisions cold, never an error.
     */
    public Optional<SandboxRuntime> claim(ProvisioningRequest request, String node) {
        SandboxProgram program = request.program();
        // a kept workspace, a snapshot or a disk size of its own is not what warm members have
        // pool members are open sandboxes on the default bridge with the node's defaults: any other
        // egress policy, runtime class, GPUs or networks of its own provisions cold (naming the
        // node's default runtime class, as OpenHands' SDK names runc, is asking for the default)
        if (!request.extraDependencies().isEmpty() || request.failAt() != null || request.egress().ownNetwork()
                || !request.workspace().isFreshDefault() || !nodes.isDefaultThere(node, request.isolation())) {
            return Optional.empty();
        }
        // a program's user, group and extra group are part of what its pool's members run as
        PoolProgram shapeOfProgram = program == null ? null
                : new PoolProgram(program.command(), program.workingDir(), program.user(), Map.of(), program.fsGroup());
        // a member started on the other executor server is not this request's (the shape holds it)
        ExecutorServer server = registrations.executorServer(request, node);
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
                SandboxRuntime runtime = registrations.describe(request, node, candidate.get());
                Optional<CompletableFuture<RuntimeStatus>> tracked = inFlight.trackUnlessTracked(runtime.id());
                if (tracked.isEmpty()) {
                    // claimed by another request of this control plane a moment ago (a stale queue)
                    continue;
                }
                CompletableFuture<RuntimeStatus> settled = tracked.get();
                RuntimeRegistrations.Claim claim;
                try {
                    claim = registrations.register(runtime, request, shape, settled);
                } catch (RuntimeException refused) {
                    // a quota, a busy conversation: the sandbox was not claimed and waits for the next request
                    pools.putBack(candidate.get());
                    throw refused;
                }
                if (claim == RuntimeRegistrations.Claim.ROLLED_BACK) {
                    rolledBack.add(candidate.get());
                }
                if (claim != RuntimeRegistrations.Claim.REGISTERED) {
                    continue;
                }
                pools.claimed(candidate.get());
                keeper.claimedFrom(pool.get());
                return Optional.of(warmUp(runtime, candidate.get(), settled, started, System.nanoTime() - started));
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
                                  long started, long registerNanos) {
        try {
            return warmUpNow(runtime, warm, settled, started, registerNanos);
        } catch (RuntimeException e) {
            // whatever went wrong, the runtime must not stay "in flight" where the reconciler never looks
            cleanup.removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            inFlight.settle(runtime.id(), settled, cleanup.fail(runtime.id(),
                    "Provisioning failed claiming a warm sandbox: " + secrets.redact(runtime, e.toString())), null);
            return journal.find(runtime.id()).orElse(runtime);
        }
    }

    private SandboxRuntime warmUpNow(SandboxRuntime runtime, WarmSandbox warm,
                                     CompletableFuture<RuntimeStatus> settled, long started, long registerNanos) {
        String id = runtime.id();
        RuntimeBackend backend = nodes.on(runtime.node());
        URI endpoint = URI.create(warm.executorUrl());
        Optional<SandboxProgram> program = runtime.program();
        SandboxConfiguration configuration = null;
        long credentialsFrom = System.nanoTime();
        try {
            if (program.isEmpty()) {
                configuration = configurations.of(runtime, credentials.resolveAll(runtime.userId()));
                secrets.remember(id, configuration.secretValues());
            } else {
                secrets.remember(id, RuntimeSecrets.secretLooking(program.get().environment()));
            }
        } catch (RuntimeException e) {
            cleanup.removeQuietly(backend, runtime.containerName());
            inFlight.settle(id, settled, cleanup.fail(id, "Provisioning failed at step '"
                    + ProvisioningStep.CREDENTIALS.label() + "': " + e.getMessage()), null);
            return journal.find(id).orElse(runtime);
        }
        long checkFrom = System.nanoTime();
        long injectFrom = checkFrom;
        try {
            // the warm sandbox's keys go only to its own executor (a local one's port may have changed hands)
            if (!backend.listensAt(runtime.containerName(), endpoint)) {
                throw new BackendException("its executor no longer listens at " + endpoint);
            }
            injectFrom = System.nanoTime();
            if (program.isEmpty()) {
                executors.configure(endpoint, runtime.sessionKey(), configuration);
            } else {
                SandboxProgram p = program.get();
                Map<String, String> environment = configurations.programEnvironment(runtime, p);
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
            cleanup.removeQuietly(backend, runtime.containerName());
            cold.launch(runtime, settled, null, null);
            return journal.find(id).orElse(runtime);
        }
        long configured = System.nanoTime();
        String startedMessage = "Warm sandbox from pool '" + warm.pool() + "' (ready since " + warm.readyAt()
                + "); " + (program.isEmpty() ? "configuration injected" : "its dormant server initialised") + " in "
                + (configured - started) / 1_000_000 + " ms (register " + registerNanos / 1_000_000
                + ", credentials " + (checkFrom - credentialsFrom) / 1_000_000
                + ", check " + (injectFrom - checkFrom) / 1_000_000
                + ", inject " + (configured - injectFrom) / 1_000_000 + ")";
        if (runtime.repository().isPresent()) {
            try {
                executor.execute(() -> {
                    RuntimeStatus outcome = RuntimeStatus.ERROR;
                    try {
                        outcome = cloneThenReady(runtime, endpoint, startedMessage, started);
                    } finally {
                        inFlight.settle(id, settled, outcome, null);
                    }
                });
            } catch (RejectedExecutionException e) {
                cleanup.removeQuietly(backend, runtime.containerName());
                inFlight.settle(id, settled, cleanup.fail(id, "Provisioning could not go on: the control plane has "
                        + "no thread for it now (it is shutting down or saturated); try again"), null);
            }
            return journal.find(id).orElse(runtime);
        }
        RuntimeStatus outcome = RuntimeStatus.ERROR;
        try {
            String readyMessage = "Ready in " + (System.nanoTime() - started) / 1_000_000 + " ms from pool '"
                    + warm.pool() + "'";
            LockConflicts.retried(() -> journal.startedAndReady(id, startedMessage, readyMessage))
                    .ifPresent(old -> cleanup.removeQuietly(nodes.on(old.node()), old.containerName()));
            outcome = RuntimeStatus.READY;
            metrics.ready(DockyardMetrics.ReadyPath.WARM, Duration.ofNanos(System.nanoTime() - started));
        } catch (IllegalTransitionException e) {
            cleanup.removeQuietly(backend, runtime.containerName());
            outcome = e.from();
        } catch (RuntimeException e) {
            cleanup.removeQuietly(backend, runtime.containerName());
            outcome = cleanup.fail(id, ProvisioningCleanup.failedAt(ProvisioningStep.RECORD, e));
        } finally {
            inFlight.settle(id, settled, outcome, null);
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
                    .ifPresent(old -> cleanup.removeQuietly(nodes.on(old.node()), old.containerName()));
            metrics.ready(DockyardMetrics.ReadyPath.WARM, Duration.ofNanos(System.nanoTime() - started));
            return RuntimeStatus.READY;
        } catch (IllegalTransitionException e) {
            cleanup.removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            return e.from();
        } catch (RuntimeException e) {
            cleanup.removeQuietly(nodes.on(runtime.node()), runtime.containerName());
            return cleanup.fail(id, "Provisioning failed at step '" + ProvisioningStep.REPOSITORY.label() + "': "
                    + secrets.redact(runtime, e.getMessage()));
        }
    }
}
