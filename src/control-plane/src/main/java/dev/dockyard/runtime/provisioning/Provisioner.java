package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.logging.Logger;

/**
 * Provisions runtimes, moves them and stops them: the one entry the use cases call, which hands
 * each job to the class that does it.
 *
 * <ul>
 *   <li>A request is served warm when a pool keeps sandboxes of its settings and has one ready
 *       ({@link WarmClaims}), else cold, in a sandbox created for it ({@link ColdProvisioning}).</li>
 *   <li>{@link Migrations} moves a READY runtime to another node.</li>
 *   <li>{@link RuntimesInFlight} knows which runtimes this control plane is bringing up.</li>
 *   <li>Stopping, a record and a removal, is done here.</li>
 * </ul>
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
    NodeAccess access;

    @Inject
    Accounts accounts;

    @Inject
    WarmClaims warm;

    @Inject
    ColdProvisioning cold;

    @Inject
    Migrations migrations;

    @Inject
    RuntimesInFlight inFlight;

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
        Optional<SandboxRuntime> claimed = access.mayUse(node, request.userId(), request.role())
                ? warm.claim(request, node) : Optional.empty();
        if (claimed.isPresent()) {
            return claimed.get();
        }
        return cold.provision(request);
    }

    /**
     * Moves a READY runtime to {@code targetNode} (null: the first other node open to its owner and
     * the caller); see {@link Migrations#migrate}. Returns the new runtime, being provisioned.
     *
     * @throws BackendNodes.UnknownNodeException when the target is not a configured node
     * @throws dev.dockyard.placement.NodeForbiddenException when the owner or the caller may not use the target
     * @throws MigrationRefusedException          when the runtime cannot be migrated now
     */
    public SandboxRuntime migrate(String runtimeId, String targetNode, ProvisioningStep failAt, String callerId,
                                  Role callerRole) {
        return migrations.migrate(runtimeId, targetNode, failAt, callerId, callerRole);
    }

    /** Whether the runtime's workspace is being carried to another node right now (it takes no actions). */
    public boolean isMigrating(String runtimeId) {
        return migrations.isMigrating(runtimeId);
    }

    /** Whether this control plane is bringing the runtime up right now. */
    public boolean isInFlight(String runtimeId) {
        return inFlight.isInFlight(runtimeId);
    }

    /**
     * Completes when a runtime that is being provisioned has settled, its hand-over included;
     * empty when nothing here is provisioning it. See {@link RuntimesInFlight#whenSettled}.
     */
    public Optional<CompletionStage<RuntimeStatus>> whenSettled(String runtimeId) {
        return inFlight.whenSettled(runtimeId);
    }

    /**
     * Stops a runtime for good: records STOPPED first, so provisioning still at work on it backs
     * off, then removes its sandbox.
     */
    public SandboxRuntime stop(String runtimeId) {
        SandboxRuntime runtime = journal.stop(runtimeId, "Stopped on request");
        try {
            nodes.on(runtime.node()).remove(runtime.containerName());
        } catch (EngineUnreachableException e) {
            // the stop is recorded, and that is what was asked: the sandbox of a runtime no longer live
            // is the reconciler's to remove (by its labels, after its grace) once its engine answers
            // again (an engine restarting). An engine that answered with an error is the caller's to hear
            LOG.warning("Runtime " + runtimeId + " is stopped; its sandbox is removed by the reconciler, as it could "
                    + "not be now: " + e.getMessage());
        }
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
}
