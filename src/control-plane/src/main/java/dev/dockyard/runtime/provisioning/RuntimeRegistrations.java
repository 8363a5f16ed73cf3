package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.pool.WarmSandbox;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a provisioning request into its runtime record: the runtime described (in a sandbox of
 * its own, or in a claimed warm one) and registered through {@link Admissions}, whose refusals
 * become the caller's exceptions. Cold provisioning and warm claims share it: they differ in where
 * the sandbox comes from, not in what is recorded.
 */
@ApplicationScoped
public class RuntimeRegistrations {

    @Inject
    ProvisioningJournal journal;

    @Inject
    Admissions admissions;

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    ControlPlaneInstance instance;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    RuntimesInFlight inFlight;

    /**
     * How a registration that claims a warm member ended, when it did not throw: registered, the
     * member taken by another first, or rolled back without the database saying whose the member is.
     */
    public enum Claim {
        REGISTERED, LOST, ROLLED_BACK
    }

    /** The runtime a request describes, in its own new sandbox or in a claimed warm one ({@code warm}, else null). */
    public SandboxRuntime describe(ProvisioningRequest request, String node, WarmSandbox warm) {
        SandboxRuntime runtime = warm == null
                ? new SandboxRuntime(request.conversationId(), request.userId(), nodes.on(node).name(),
                        request.image(), request.cpus(), request.memoryMb(), request.timeoutSeconds(), clock.instant())
                // the member's key, which its executor or dormant server booted with, is the sandbox key
                : new SandboxRuntime(warm.id(), warm.sessionKey(), request.conversationId(), request.userId(),
                        nodes.on(node).name(), request.image(), request.cpus(), request.memoryMb(),
                        request.timeoutSeconds(), clock.instant());
        runtime.assignNode(node);
        runtime.ownedBy(config.instance());
        runtime.provisionedBy(instance.process());
        runtime.configuredFor(request.agent().name(), request.llm());
        runtime.withEnvironment(request.environment());
        runtime.withExtraDependencies(request.extraDependencies());
        runtime.withPlugins(request.plugins());
        runtime.withEgress(request.egress());
        runtime.withRepository(request.repository());
        runtime.runsProgram(request.program());
        runtime.startsExecutorOn(executorServer(request, node));
        // a runtime class that is the node's default is the default there: a node that knows of no
        // runtime classes (a remote Dockyard) is then asked for nothing it would refuse
        runtime.isolatedAs(nodes.isDefaultThere(node, request.isolation()) ? SandboxIsolation.DEFAULT
                : request.isolation());
        runtime.publishesPorts(request.servicePorts());
        runtime.withWorkspace(request.workspace().sandboxWorkspace());
        ProvisioningRequest.Lifecycle lifecycle = request.lifecycle() != null ? request.lifecycle()
                : new ProvisioningRequest.Lifecycle(false, config.idleTimeoutSeconds(), config.ttlSeconds());
        runtime.withLifecycle(lifecycle.keepAlive(), lifecycle.idleTimeoutSeconds(), lifecycle.ttlSeconds());
        if (lifecycle.endAfterSeconds() > 0) {
            runtime.endsAt(runtime.createdAt().plusSeconds(lifecycle.endAfterSeconds()), lifecycle.atEnd());
        }
        runtime.describedAs(request.metadata());
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
    public ExecutorServer executorServer(ProvisioningRequest request, String node) {
        if (request.program() != null) {
            return null;
        }
        return request.executorServer() != null ? request.executorServer() : nodes.executorServer(node);
    }

    /**
     * Records the runtime (its claim of the warm member of {@code claimedShape} with it, for a warm
     * one; null for a cold one); the runtime stops being tracked in flight on every way out but
     * {@link Claim#REGISTERED}.
     *
     * @throws ConversationBusyException when the conversation has a live runtime
     * @throws dev.dockyard.tenancy.QuotaExceededException when the user's quota is spent
     */
    public Claim register(SandboxRuntime runtime, ProvisioningRequest request, String claimedShape,
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
                inFlight.untrack(runtime.id(), settled);
                return Claim.LOST;
            }
            return Claim.REGISTERED;
        } catch (PersistenceException | TransactionalException e) {
            inFlight.untrack(runtime.id(), settled);
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
            inFlight.untrack(runtime.id(), settled);
            throw e;
        }
    }
}
