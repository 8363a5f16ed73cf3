package dev.dockyard.runtime.provisioning;

import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.placement.Placement;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Migrations: a READY runtime moved to another backend node. The move is a replacement: a new
 * runtime with the same settings is registered on the target, its workspace copied from the
 * runtime it replaces before its sandbox starts, and it is booted as a cold one
 * ({@link ColdProvisioning}); once READY it takes the conversation over and the old runtime goes.
 *
 * <p>The copy is of one point in time: the migration holds the old runtime's gate (no new action,
 * pause or resume; the running ones finish first) and freezes its sandbox before copying
 * ({@link MigrationSource}), so nothing written afterwards can be lost. A failed migration thaws
 * it and it serves on. A migration takes no quota of its own.
 */
@ApplicationScoped
public class Migrations {

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimesInFlight inFlight;

    @Inject
    ColdProvisioning cold;

    @Inject
    BackendNodes nodes;

    @Inject
    Placement placement;

    @Inject
    NodeAccess access;

    @Inject
    Accounts accounts;

    @Inject
    RuntimeGates gates;

    @Inject
    DockyardConfig config;

    @Inject
    ControlPlaneInstance instance;

    @Inject
    Clock clock;

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
        migrated.provisionedBy(instance.process());
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
        // an end time is a point in time: it moves as it is
        migrated.endsAt(source.endsAt().orElse(null), source.atEnd());
        migrated.describedAs(source.metadata());
        // a fresh volume of the same size, filled by the copy below (a kept one it mounted stays behind)
        migrated.withWorkspace(SandboxWorkspace.fresh(source.workspace().diskMb()));
        RuntimeGates.Pass hold;
        try {
            // from here no action, pause or resume reaches the source; the running actions have finished
            hold = gates.beginMigration(runtimeId, config.migrationDrainTimeout());
        } catch (RuntimeGates.RuntimeBusyException e) {
            throw new MigrationRefusedException(e.getMessage());
        }
        MigrationSource from = new MigrationSource(sourceNode, source.containerName(), nodes, hold);
        CompletableFuture<RuntimeStatus> settled = inFlight.track(migrated.id());
        String refused;
        try {
            // the target must be healthy and have room, like any node a runtime is placed on
            refused = placement.place(target, migrated.memoryMb(), source.userId(), ownerRole, chosen -> {
                // the target must offer the runtime class, GPUs and networks the runtime was given
                nodes.requireIsolation(chosen, migrated.isolation());
                return journal.registerMigration(migrated, runtimeId, sourceNode, chosen);
            });
        } catch (RuntimeException e) {
            forget(migrated.id(), from);
            throw e;
        }
        if (refused != null) {
            forget(migrated.id(), from);
            throw new MigrationRefusedException(refused);
        }
        if (!cold.launch(migrated, settled, failAt, from)) {
            return journal.find(migrated.id()).orElse(migrated);
        }
        return migrated;
    }

    /** A migration that was not registered is neither in flight nor under way. */
    private void forget(String migratedId, MigrationSource from) {
        inFlight.untrack(migratedId);
        from.release();
    }

    /** Whether the runtime's workspace is being carried to another node right now (it takes no actions). */
    public boolean isMigrating(String runtimeId) {
        return gates.isMigrating(runtimeId);
    }
}
