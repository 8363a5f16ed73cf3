package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.placement.Placement;
import dev.dockyard.pool.PoolKeeper;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.tenancy.Accounts;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import java.time.Clock;

/**
 * The {@link Provisioner} and the beans it hands its jobs to, wired to each other as CDI wires
 * them, for tests that build them by hand: a collaborator given here goes to every bean that uses
 * it, so a test says what the provisioning runs on, not which bean reads what.
 */
final class ProvisioningBeans {

    final Provisioner provisioner = new Provisioner();
    final RuntimesInFlight inFlight = new RuntimesInFlight();
    final ProvisioningCleanup cleanup = new ProvisioningCleanup();
    final RuntimeRegistrations registrations = new RuntimeRegistrations();
    final ColdProvisioning cold = new ColdProvisioning();
    final WarmClaims warm = new WarmClaims();
    final Migrations migrations = new Migrations();

    ProvisioningBeans() {
        provisioner.warm = warm;
        provisioner.cold = cold;
        provisioner.migrations = migrations;
        provisioner.inFlight = inFlight;
        registrations.inFlight = inFlight;
        cold.registrations = registrations;
        cold.inFlight = inFlight;
        cold.cleanup = cleanup;
        warm.registrations = registrations;
        warm.inFlight = inFlight;
        warm.cleanup = cleanup;
        warm.cold = cold;
        migrations.inFlight = inFlight;
        migrations.cold = cold;
    }

    void journal(ProvisioningJournal journal) {
        provisioner.journal = journal;
        cleanup.journal = journal;
        registrations.journal = journal;
        cold.journal = journal;
        warm.journal = journal;
        migrations.journal = journal;
    }

    void admissions(Admissions admissions) {
        registrations.admissions = admissions;
    }

    void secrets(RuntimeSecrets secrets) {
        inFlight.secrets = secrets;
        cleanup.secrets = secrets;
        cold.secrets = secrets;
        warm.secrets = secrets;
    }

    void nodes(BackendNodes nodes) {
        provisioner.nodes = nodes;
        registrations.nodes = nodes;
        cold.nodes = nodes;
        warm.nodes = nodes;
        migrations.nodes = nodes;
    }

    void placement(Placement placement) {
        cold.placement = placement;
        warm.placement = placement;
        migrations.placement = placement;
    }

    void access(NodeAccess access) {
        provisioner.access = access;
        migrations.access = access;
    }

    void accounts(Accounts accounts) {
        provisioner.accounts = accounts;
        migrations.accounts = accounts;
    }

    void pools(WarmPools pools) {
        warm.pools = pools;
    }

    void keeper(PoolKeeper keeper) {
        warm.keeper = keeper;
    }

    void clock(Clock clock) {
        registrations.clock = clock;
        cold.clock = clock;
        migrations.clock = clock;
    }

    void instance(ControlPlaneInstance instance) {
        registrations.instance = instance;
        migrations.instance = instance;
    }

    void config(DockyardConfig config) {
        registrations.config = config;
        cold.config = config;
        warm.config = config;
        migrations.config = config;
    }

    void turns(BootTurns turns) {
        cold.turns = turns;
    }

    void gates(RuntimeGates gates) {
        migrations.gates = gates;
    }

    void executor(ManagedExecutorService executor) {
        cold.executor = executor;
        warm.executor = executor;
    }

    void credentials(Credentials credentials) {
        cold.credentials = credentials;
        warm.credentials = credentials;
    }

    void configurations(SandboxConfigurations configurations) {
        cold.configurations = configurations;
        warm.configurations = configurations;
    }

    void images(RuntimeImages images) {
        cold.images = images;
    }

    void readiness(ReadinessProbe readiness) {
        cold.readiness = readiness;
    }

    void executors(ExecutorClient executors) {
        cold.executors = executors;
        warm.executors = executors;
    }
}
