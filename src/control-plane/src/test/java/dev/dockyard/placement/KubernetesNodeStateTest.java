package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.kubernetes.MockCluster;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.tenancy.Role;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Kubernetes node as placement and GET /api/v1/nodes see it: typed {@code kubernetes} (the type is
 * its backend's name), healthy while the API server answers its probe, unhealthy once it fails.
 */
class KubernetesNodeStateTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    private final MockCluster cluster = new MockCluster();
    private final MutableClock clock = new MutableClock(NOW);
    private final Map<String, RuntimeBackend> backends = Map.of("k8s", cluster.backend(MockCluster.settings()),
            "local", new FakeBackend());
    private final BackendNodes nodes = new BackendNodes() {
        @Override
        public String defaultNode() {
            return "k8s";
        }

        @Override
        public List<String> names() {
            return List.of("k8s", "local");
        }

        @Override
        public RuntimeBackend on(String node) {
            return backends.get(node == null ? defaultNode() : node);
        }

        @Override
        public RuntimeImageBuilder images(String node) {
            throw new UnsupportedOperationException("no image builds here");
        }
    };
    private final Placement placement = Placements.unbounded(nodes, new FakeRuntimes(), clock);

    @AfterEach
    void close() {
        cluster.close();
    }

    @Test
    void shouldReportAKubernetesNodeByTypeAndItsApiServersHealth() throws InterruptedException {
        placement.health.probeAll();
        NodeState k8s = placement.states().get(0);
        assertEquals("k8s", k8s.name());
        assertEquals("kubernetes", k8s.type());
        assertTrue(k8s.health().healthy(), k8s.toString());
        assertEquals("fake", placement.states().get(1).type());

        String ping = cluster.requests().get(0).substring(4);
        cluster.server.expect().get().withPath(ping).andReturn(500, "etcd is down").always();
        clock.advance(Duration.ofSeconds(10));
        placement.health.probeAll();

        NodeReport down = placement.states().get(0).health();
        assertFalse(down.healthy(), down.toString());
        assertTrue(down.error().contains(MockCluster.NAMESPACE), down.toString());
        assertEquals("local", placement.place(null, 512, "alice", Role.USER, n -> n),
                "new runtimes go to the healthy node");
    }
}
