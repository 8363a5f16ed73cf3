package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.placement.NodeForbiddenException;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.placement.Placements;
import dev.dockyard.pool.MemberRowLocks;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A migration on fake nodes, run on the calling thread: the source is frozen before its workspace
 * is read and admits no action while it is, goes once the target is READY, and is thawed and
 * serving again when the move fails.
 */
class ProvisionerMigrationTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final FakeNodes nodes = new FakeNodes("local", "node2");
    private final FakeBackend source = nodes.backend("local");
    private final FakeBackend target = nodes.backend("node2");
    private final RuntimeGates gates = new RuntimeGates();
    private final ProvisioningBeans beans = new ProvisioningBeans();
    private final Provisioner provisioner = beans.provisioner;
    /** The per-node settings placement and the node access rule read (allowed-users). */
    private final TestConfig nodeConfig = new TestConfig();
    /** The control plane's own settings (boot turns, sandbox defaults). */
    private final TestConfig config = new TestConfig();
    private final List<String> duringArchive = new ArrayList<>();
    private SandboxRuntime old;

    /** Runs every task at once on the calling thread. */
    private static ManagedExecutorService inline() {
        return (ManagedExecutorService) Proxy.newProxyInstance(ProvisionerMigrationTest.class.getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    if (method.getName().equals("execute")) {
                        ((Runnable) args[0]).run();
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @BeforeEach
    void wire() {
        RuntimeSecrets secrets = new RuntimeSecrets();
        ProvisioningJournal journal = Journals.over(runtimes, clock, secrets);
        journal.compensation = new SandboxCompensation() {
            @Override
            public void removeOnRollback(RuntimeBackend backend, String sandboxName) {
            }
        };
        beans.journal(journal);
        Admissions admissions = new Admissions();
        admissions.journal = journal;
        admissions.memberRows = new MemberRowLocks();
        beans.admissions(admissions);
        beans.pools(NoPools.warmPools());
        beans.nodes(nodes);
        beans.placement(Placements.over(nodes, runtimes, Map::of, clock, Map.of(), nodeConfig));
        beans.access(Placements.access(nodes, nodeConfig));
        beans.clock(clock);
        beans.instance(ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        beans.config(config);
        beans.turns(Placements.turns(config));
        beans.gates(gates);
        beans.secrets(secrets);
        beans.executor(inline());
        beans.credentials(new Credentials() {
            @Override
            public Map<String, String> resolveAll(String userId) {
                return Map.of();
            }
        });
        beans.configurations(new SandboxConfigurations() {
            @Override
            public SandboxConfiguration of(SandboxRuntime runtime, Map<String, String> credentials) {
                return new SandboxConfiguration(Map.of(), null, null, null);
            }
        });
        beans.images(new RuntimeImages() {
            @Override
            public Resolution resolve(String node, String image, ExtraDependencies extra, Consumer<ImageBuild> onBuild) {
                return new Resolution(image, null);
            }
        });
        beans.readiness(new ReadinessProbe() {
            @Override
            public void probe(ReadinessAttempt attempt) {
            }
        });
        beans.executors(new ExecutorClient() {
            @Override
            public void configure(URI executor, String sessionKey, SandboxConfiguration configuration) {
            }
        });

        old = new SandboxRuntime("conv", "alice", "fake", "img", 1, 512, 60, clock.instant());
        old.assignNode("local");
        runtimes.add(old, new StatusChange(old.id(), old.status(), "requested", clock.instant()));
        runtimes.record(old.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", clock.instant()));
        runtimes.record(old.transitionTo(RuntimeStatus.READY, "ready", clock.instant()));
        source.put(old.containerName(), old.id(), clock.instant(), Phase.RUNNING);
        source.onCall(call -> {
            if (call.startsWith("archive ")) {
                duringArchive.add("source " + source.phase(old.containerName()));
                try (RuntimeGates.Pass pass = gates.enterAction(old.id())) {
                    duringArchive.add("an action was admitted");
                } catch (RuntimeGates.RuntimeBusyException refused) {
                    duringArchive.add("actions refused");
                }
            }
        });
    }

    @Test
    void shouldFreezeTheSourceForTheCopyAndRemoveItOnceTheTargetIsReady() {
        SandboxRuntime moved = provisioner.migrate(old.id(), "node2", null, "alice", Role.USER);

        assertEquals(List.of("source PAUSED", "actions refused"), duringArchive);
        List<String> calls = source.calls();
        // the workspace's contents, unpacked into the target's workspace: never through its (read-only) root
        int archived = calls.indexOf("archive " + old.containerName() + " /workspace/.");
        assertTrue(calls.indexOf("pause " + old.containerName()) < archived && archived >= 0, calls.toString());
        assertTrue(target.calls().stream().anyMatch(c -> c.startsWith("restore ") && c.endsWith(" /workspace")),
                target.calls().toString());
        // a node that brings the sandbox up on its own (a remote one) is waited for before the copy
        List<String> onTarget = target.calls().stream().map(c -> c.split(" ")[0]).toList();
        assertTrue(onTarget.indexOf("create") < onTarget.indexOf("await")
                && onTarget.indexOf("await") < onTarget.indexOf("restore")
                && onTarget.indexOf("restore") < onTarget.indexOf("start"), target.calls().toString());
        assertTrue(target.calls().contains("await " + moved.containerName() + " " + moved.timeoutSeconds() + "s"),
                target.calls().toString());
        assertEquals(RuntimeStatus.READY, runtimes.find(moved.id()).orElseThrow().status());
        assertEquals(RuntimeStatus.STOPPED, runtimes.find(old.id()).orElseThrow().status());
        assertEquals(Phase.MISSING, source.phase(old.containerName()));
        assertFalse(gates.isMigrating(old.id()));
    }

    @Test
    void shouldMoveARuntimeOnTheExecutorServerItWasGivenWhateverTheTargetNodesSetting() {
        old.startsExecutorOn(ExecutorServer.EMBEDDED);
        nodes.executorServer("node2", ExecutorServer.LIBERTY);

        SandboxRuntime moved = provisioner.migrate(old.id(), "node2", null, "alice", Role.USER);

        assertEquals(Optional.of(ExecutorServer.EMBEDDED), runtimes.find(moved.id()).orElseThrow().executorServer());
        assertEquals(ExecutorServer.EMBEDDED, target.createdSpecs().get(0).executorServer());
    }

    @Test
    void shouldMoveARuntimeRecordedBeforeTheChoiceOnLibertyWhatItRan() {
        // old was recorded without a server, as rows before the column were
        assertEquals(Optional.of(ExecutorServer.LIBERTY), old.executorServer());

        SandboxRuntime moved = provisioner.migrate(old.id(), "node2", null, "alice", Role.USER);

        assertEquals(Optional.of(ExecutorServer.LIBERTY), runtimes.find(moved.id()).orElseThrow().executorServer());
        assertEquals(ExecutorServer.LIBERTY, target.createdSpecs().get(0).executorServer());
    }

    @Test
    void shouldThawTheSourceAndLetItServeWhenTheMoveFails() {
        SandboxRuntime moved = provisioner.migrate(old.id(), "node2", ProvisioningStep.READINESS, "alice", Role.USER);

        assertEquals(RuntimeStatus.ERROR, runtimes.find(moved.id()).orElseThrow().status());
        assertEquals(RuntimeStatus.READY, runtimes.find(old.id()).orElseThrow().status());
        assertEquals(Phase.RUNNING, source.phase(old.containerName()), "thawed");
        assertEquals(Phase.MISSING, target.phase("dockyard-" + moved.id()), "nothing left on the target");
        gates.enterAction(old.id()).close();
    }

    @Test
    void shouldRefuseAMigrationToANodeWhoseBackendFailsItsHealthCheckAndLeaveTheSourceServing() {
        target.pingFails(new BackendException("Cannot connect to the Docker daemon"));

        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class,
                () -> provisioner.migrate(old.id(), "node2", null, "alice", Role.USER));

        assertEquals(PlacementRefusedException.Reason.NODE_UNHEALTHY, refused.reason());
        assertEquals("node2", refused.node());
        assertEquals(List.of(), target.calls(), "nothing was created on the unhealthy node");
        assertEquals(RuntimeStatus.READY, runtimes.find(old.id()).orElseThrow().status());
        assertTrue(runtimes.replacementOf(old.id()).isEmpty(), "no migration was recorded");
        assertFalse(provisioner.isMigrating(old.id()));
    }

    @Test
    void shouldRefuseAMigrationWhileAnActionRuns() {
        try (RuntimeGates.Pass action = gates.enterAction(old.id())) {
            MigrationRefusedException refused = assertThrows(MigrationRefusedException.class,
                    () -> provisioner.migrate(old.id(), "node2", null, "alice", Role.USER));
            assertTrue(refused.getMessage().contains("still running"), refused.getMessage());
        }
        assertEquals(RuntimeStatus.READY, runtimes.find(old.id()).orElseThrow().status());
        assertEquals(List.of(), target.calls());
    }

    @Test
    void shouldRefuseMigratingToANodeTheOwnerMayNotUse() {
        target.type = "cli";

        NodeForbiddenException refused = assertThrows(NodeForbiddenException.class,
                () -> provisioner.migrate(old.id(), "node2", null, "alice", Role.USER));
        assertEquals("node2", refused.node());
        MigrationRefusedException none = assertThrows(MigrationRefusedException.class,
                () -> provisioner.migrate(old.id(), null, null, "alice", Role.USER));
        assertTrue(none.getMessage().contains("open to user 'alice'"), none.getMessage());

        assertEquals(List.of(), target.calls(), "nothing was created on the cli node");
        assertEquals(List.of(), duringArchive, "the source was not frozen");
        assertTrue(runtimes.replacementOf(old.id()).isEmpty(), "no migration was recorded");
        assertFalse(provisioner.isMigrating(old.id()));

        nodeConfig.nodeAllowedUsers.put("node2", Set.of("alice"));
        SandboxRuntime moved = provisioner.migrate(old.id(), null, null, "alice", Role.USER);
        assertEquals("node2", moved.node(), "granted: the first other node is hers");
    }
}
