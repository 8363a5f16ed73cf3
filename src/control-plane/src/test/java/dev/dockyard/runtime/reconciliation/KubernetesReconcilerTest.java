package dev.dockyard.runtime.reconciliation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.kubernetes.KubernetesBackend;
import dev.dockyard.backend.kubernetes.MockCluster;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.runtime.provisioning.Provisioner;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconciler over a Kubernetes node: fabric8's mock API server (CRUD mode) holds the pods,
 * secrets and claims; the runtime table is in memory and the clock is moved by hand.
 */
class KubernetesReconcilerTest {

    private final MockCluster cluster = new MockCluster();
    private final KubernetesBackend backend = cluster.backend(MockCluster.settings());
    private final MutableClock clock = new MutableClock(Instant.now());
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final TestConfig config = new TestConfig();
    private final Reconciler reconciler = new Reconciler();

    @BeforeEach
    void wire() {
        config.instance = MockCluster.CONTROL_PLANE;
        reconciler.nodes = new BackendNodes() {
            @Override
            public String defaultNode() {
                return "k8s";
            }

            @Override
            public List<String> names() {
                return List.of("k8s");
            }

            @Override
            public RuntimeBackend on(String node) {
                return backend;
            }

            @Override
            public RuntimeImageBuilder images(String node) {
                throw new UnsupportedOperationException();
            }
        };
        reconciler.pools = NoPools.keeper();
        reconciler.journal = Journals.over(runtimes, clock, new RuntimeSecrets());
        reconciler.config = config;
        reconciler.clock = clock;
        reconciler.health = Placements.health(reconciler.nodes, clock);
        reconciler.gates = new RuntimeGates();
        reconciler.leases = new Leases(new FakeLeaseStore(), clock, ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        reconciler.secrets = new RuntimeSecrets();
        reconciler.provisioner = new Provisioner() {
            @Override
            public boolean isInFlight(String runtimeId) {
                return false;
            }
        };
        reconciler.executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                return true;
            }
        };
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    /** A READY runtime whose sandbox runs as a pod. */
    private SandboxRuntime liveRuntime() {
        SandboxRuntime runtime = new SandboxRuntime("conv-live", "alice", "fake", "img", 1.0, 512, 60, clock.instant());
        runtime.assignNode("k8s");
        runtime.ownedBy(config.instance);
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "test", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.READY, "test", clock.instant()));
        SandboxSpec spec = MockCluster.spec(runtime.id(), "sk-live");
        backend.create(new SandboxSpec(runtime.id(), spec.conversationId(), spec.controlPlane(),
                runtime.containerName(), spec.image(), 1, 0, 512, 64, "1000", 8000, "sk-live", List.of(), null,
                List.of()));
        cluster.markRunning(runtime.containerName(), "10.0.0.7");
        return runtime;
    }

    private boolean exists(String sandboxName) {
        return cluster.pod(sandboxName) != null;
    }

    @Test
    void shouldRemoveALabelledPodWithoutALiveRuntimeAfterTheGrace() {
        SandboxRuntime live = liveRuntime();
        backend.create(MockCluster.spec("orphan", "sk-orphan"));
        cluster.markRunning("dockyard-orphan", "10.0.0.8");

        Reconciler.Report early = reconciler.pass();
        assertEquals(0, early.orphansRemoved(), "inside the grace: it may be a sandbox being set up");
        assertTrue(exists("dockyard-orphan"));

        clock.advance(config.reconcilerGrace.plusSeconds(60));
        Reconciler.Report report = reconciler.pass();

        assertEquals(2, report.sandboxesSeen());
        assertEquals(1, report.orphansRemoved());
        assertNull(cluster.pod("dockyard-orphan"));
        assertNull(cluster.client.secrets().inNamespace(MockCluster.NAMESPACE).withName("dockyard-orphan-key").get());
        assertNull(cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE)
                .withName("dockyard-orphan-ws").get());
        assertTrue(exists(live.containerName()), "the live runtime's pod stays");
        assertEquals(RuntimeStatus.READY, runtimes.find(live.id()).orElseThrow().status());
    }

    @Test
    void shouldDoNothingWhenThePodListFails() throws InterruptedException {
        SandboxRuntime live = liveRuntime();
        backend.create(MockCluster.spec("orphan2", "sk-orphan"));
        cluster.requests();
        backend.listManaged(MockCluster.CONTROL_PLANE);
        String podList = cluster.requests().stream().filter(r -> r.startsWith("GET ") && r.contains("/pods?"))
                .findFirst().orElseThrow().substring(4);
        cluster.server.expect().get().withPath(podList).andReturn(503, "the API server is overloaded").always();
        // the live runtime's pod is gone too: a complete view would disconnect it
        cluster.client.pods().inNamespace(MockCluster.NAMESPACE).withName(live.containerName()).delete();
        clock.advance(Duration.ofMinutes(5));

        Reconciler.Report report = reconciler.pass();

        assertTrue(report.skipped());
        assertEquals(0, report.orphansRemoved());
        assertNotNull(cluster.pod("dockyard-orphan2"), "nothing removed on an incomplete view");
        assertEquals(RuntimeStatus.READY, runtimes.find(live.id()).orElseThrow().status(), "nothing disconnected");
    }

    @Test
    void shouldLeaveAHibernatedRuntimesClaimAndSecretAlone() {
        SandboxRuntime runtime = liveRuntime();
        runtimes.record(runtime.transitionTo(RuntimeStatus.PAUSED, "test", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.HIBERNATED, "test", clock.instant()));
        backend.stop(runtime.containerName());
        clock.advance(Duration.ofMinutes(5));

        Reconciler.Report report = reconciler.pass();

        assertEquals(0, report.orphansRemoved());
        assertEquals(0, report.disconnected());
        assertEquals(RuntimeStatus.HIBERNATED, runtimes.find(runtime.id()).orElseThrow().status());
        assertNotNull(cluster.client.secrets().inNamespace(MockCluster.NAMESPACE)
                .withName(runtime.containerName() + "-key").get());
    }
}
