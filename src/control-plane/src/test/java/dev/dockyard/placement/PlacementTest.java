package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.tenancy.Role;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PlacementTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final NodeReport UP = new NodeReport(true, NOW, null);

    private final MutableClock clock = new MutableClock(NOW);
    private final FakeNodes nodes = new FakeNodes("a", "b", "c");
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final Map<String, NodeCapacity> configured = new HashMap<>();
    private final Placement placement = Placements.over(nodes, runtimes, clock, configured);
    private final ExecutorService threads = Executors.newFixedThreadPool(5);

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static NodeState node(String name, Integer maxRuntimes, Integer maxMemoryMb, int runtimes, long memoryMb) {
        return new NodeState(name, "fake", new NodeCapacity(maxRuntimes, maxMemoryMb),
                new NodeUsage(runtimes, memoryMb), UP);
    }

    private static NodeState down(NodeState node) {
        return new NodeState(node.name(), node.type(), node.capacity(), node.usage(),
                new NodeReport(false, NOW, "ConnectException: Connection refused"));
    }

    /** Places as alice, a user every fake node is open to unless a test closes one. */
    private <T> T place(String named, int memoryMb, Function<String, T> register) {
        return placement.place(named, memoryMb, "alice", Role.USER, register);
    }

    /** Records a live runtime of {@code memoryMb} on {@code node}, as a registration does. */
    private String register(String node, int memoryMb) {
        SandboxRuntime runtime = new SandboxRuntime("conv-" + runtimes.live().size() + "-" + node, "alice", "fake",
                "img", 1, memoryMb, 60, clock.instant());
        runtime.assignNode(node);
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        return node;
    }

    /**
     * A provision that found its node's engine gone marks the node down at once: the next one goes
     * to another node rather than to the same gone engine until its next health probe (the soak's
     * node cut, 2026-11-30: one agent's retries were placed on the cut node 15 times in seconds).
     */
    @Test
    void shouldPlaceElsewhereOnceAProvisionFoundTheChosenNodesEngineGone() {
        configured.put("a", new NodeCapacity(10, null));
        configured.put("b", new NodeCapacity(10, null));
        configured.put("c", new NodeCapacity(1, null));
        register("a", 512);
        assertEquals("b", place(null, 512, n -> n), "the roomiest");

        nodes.backend("b").pingFails(new EngineUnreachableException("the Docker engine of node 'b' does not answer",
                new ConnectException("Connection refused")));
        placement.unreachable("b");

        assertEquals("a", place(null, 512, n -> n), "not b again before its probe answers");
        nodes.backend("b").pingFails(null);
        clock.advance(Duration.ofSeconds(10));
        placement.health.probeAll();
        assertEquals("b", place(null, 512, n -> n), "b again once its probe answers");
    }

    /**
     * A call that found the engine silent while a fresh probe answers (the first moment of a cut,
     * the soak of 2026-12-01 04:55): the node keeps taking runtimes, but that it was away stays
     * known, so an E2B create whose provision met it asks its client to retry.
     */
    @Test
    void shouldKeepThatAProvisionFoundTheEngineSilentThoughItsProbeAnswers() {
        Instant before = clock.instant();
        placement.unreachable("b");

        assertFalse(placement.health.knownDown("b"), "its probe answered");
        assertTrue(placement.health.failedSince("b", before));
    }

    @Test
    void shouldCountWarmMembersMemoryButNoRuntimeSlot() {
        Placement withMembers = Placements.over(nodes, runtimes, () -> Map.of("a", 1024L), clock,
                Map.of("a", new NodeCapacity(2, 2048)));
        register("a", 512);

        NodeState a = withMembers.states().get(0);
        assertEquals(new NodeUsage(1, 1536), a.usage());
        assertTrue(withMembers.hasFreeSlot("a"));
        assertEquals(512, withMembers.freeMemoryMb("a").getAsLong());
        assertTrue(withMembers.freeMemoryMb("b").isEmpty(), "b is not bounded");
        register("a", 512);
        assertFalse(withMembers.hasFreeSlot("a"));
    }

    @Test
    void shouldSendNoUnnamedRuntimeToANodeOfExplicitPlacement() {
        TestConfig config = (TestConfig) placement.config;
        config.nodePlacements.put("a", "explicit");
        config.nodePlacements.put("b", "explicit");
        assertEquals("c", place(null, 512, n -> n), "a and b take only runtimes that name them");
        assertEquals("a", place("a", 512, n -> n));
        config.nodePlacements.put("c", "explicit");
        PlacementRefusedException none = assertThrows(PlacementRefusedException.class,
                () -> place(null, 512, n -> n));
        assertEquals(PlacementRefusedException.Reason.TOO_LARGE, none.reason(), "a 400: a retry cannot help");
        assertTrue(none.getMessage().contains("name one of [a, b, c]"), none.getMessage());
        config.nodePlacements.put("a", "any");
        assertEquals("a", place(null, 512, n -> n));
    }

    @Test
    void shouldChooseTheNodeWithTheMostFreeRuntimeSlots() {
        assertEquals("b", Placement.choose(List.of(node("a", 4, null, 3, 0), node("b", 4, null, 1, 0),
                node("c", 4, null, 2, 0)), null, 512));
    }

    @Test
    void shouldBreakTiesOnFreeMemoryThenOnConfiguredOrder() {
        assertEquals("c", Placement.choose(List.of(node("a", 4, 4096, 1, 2048), node("b", 4, 4096, 1, 3072),
                node("c", 4, 4096, 1, 1024)), null, 512));
        assertEquals("a", Placement.choose(List.of(node("a", 4, 4096, 1, 1024), node("b", 4, 4096, 1, 1024)),
                null, 512));
        assertEquals("a", Placement.choose(List.of(node("a", null, null, 9, 9000), node("b", null, null, 0, 0)),
                null, 512), "unbounded nodes: the first one, as before placement existed");
    }

    @Test
    void shouldSkipNodesWithoutRoomForTheRuntimesMemoryOrUnhealthy() {
        assertEquals("b", Placement.choose(List.of(node("a", 10, 2048, 1, 1600), node("b", 10, 8192, 5, 512)),
                null, 512), "a has more slots but not 512 MB free");
        assertEquals("b", Placement.choose(List.of(down(node("a", 10, null, 0, 0)), node("b", 10, null, 5, 0)),
                null, 512));
    }

    @Test
    void shouldRefuseForCapacityWhenEveryHealthyNodeIsFull() {
        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class, () -> Placement.choose(
                List.of(node("a", 2, null, 2, 1024), down(node("b", 2, null, 0, 0))), null, 512));
        assertEquals(PlacementRefusedException.Reason.NO_CAPACITY, refused.reason());
        assertEquals(null, refused.node());
        assertTrue(refused.getMessage().contains("a 2/2 runtimes, 1024/unbounded MB"), refused.getMessage());
    }

    @Test
    void shouldRefuseAsUnhealthyWhenNoNodeIsHealthy() {
        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class, () -> Placement.choose(
                List.of(down(node("a", null, null, 0, 0))), null, 512));
        assertEquals(PlacementRefusedException.Reason.NODE_UNHEALTHY, refused.reason());
        assertTrue(refused.getMessage().contains("a: ConnectException: Connection refused"), refused.getMessage());
    }

    @Test
    void shouldGiveANamedNodeOrRefuseNamingItWhenFullOrUnhealthy() {
        List<NodeState> states = List.of(node("a", 4, null, 0, 0), node("b", 1, null, 1, 512),
                down(node("c", 4, null, 0, 0)));
        assertEquals("b", Placement.choose(List.of(node("a", 4, null, 0, 0), node("b", 4, null, 3, 0)), "b", 512),
                "a named node is taken even when another has more room");
        PlacementRefusedException full = assertThrows(PlacementRefusedException.class,
                () -> Placement.choose(states, "b", 512));
        assertEquals(PlacementRefusedException.Reason.NO_CAPACITY, full.reason());
        assertEquals("b", full.node());
        PlacementRefusedException sick = assertThrows(PlacementRefusedException.class,
                () -> Placement.choose(states, "c", 512));
        assertEquals(PlacementRefusedException.Reason.NODE_UNHEALTHY, sick.reason());
        assertEquals("c", sick.node());
    }

    @Test
    void shouldRefuseARuntimeLargerThanAnyNodeMayHoldForGoodNotForNow() {
        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class, () -> Placement.choose(
                List.of(node("a", 4, 2048, 0, 0), node("b", 4, 4096, 0, 0)), null, 8192));
        assertEquals(PlacementRefusedException.Reason.TOO_LARGE, refused.reason());
        assertEquals("a runtime of 8192 MB is more than any backend node may hold (max-memory-mb: a 2048, b 4096)",
                refused.getMessage());
        assertEquals(PlacementRefusedException.Reason.TOO_LARGE, assertThrows(PlacementRefusedException.class,
                () -> Placement.choose(List.of(node("a", 4, 2048, 0, 0), node("b", 4, null, 0, 0)), "a", 4096))
                .reason());
        assertEquals("b", Placement.choose(List.of(node("a", 4, 2048, 0, 0), node("b", 4, null, 3, 0)), null, 4096));

        configured.put("a", new NodeCapacity(null, 1024));
        configured.put("b", new NodeCapacity(null, 1024));
        configured.put("c", new NodeCapacity(null, 1024));
        assertEquals(0, assertThrows(PlacementRefusedException.class, () -> place(null, 2048, n -> n))
                .retryAfterSeconds(), "no Retry-After: retrying cannot help");
        configured.put("a", new NodeCapacity(0, 4096));
        assertTrue(assertThrows(PlacementRefusedException.class, () -> place(null, 2048, n -> n))
                .retryAfterSeconds() > 0, "a full node is worth a retry");
    }

    @Test
    void shouldRefuseAnUnknownNamedNode() {
        assertThrows(BackendNodes.UnknownNodeException.class, () -> place("z", 512, n -> n));
    }

    @Test
    void shouldCountLiveRuntimesRecordedForEachNodeAndFreeTheSlotOfAStoppedOne() {
        configured.put("a", new NodeCapacity(1, null));
        configured.put("b", new NodeCapacity(1, null));
        configured.put("c", new NodeCapacity(0, null));
        assertEquals("a", place(null, 512, n -> register(n, 512)));
        assertEquals("b", place(null, 512, n -> register(n, 512)));
        assertThrows(PlacementRefusedException.class, () -> place(null, 512, n -> register(n, 512)));

        SandboxRuntime first = runtimes.live().stream().filter(r -> r.node().equals("a")).findFirst().orElseThrow();
        first.transitionTo(RuntimeStatus.STOPPED, "deleted", clock.instant());
        assertEquals("a", place(null, 512, n -> register(n, 512)));
        NodeState a = placement.states().get(0);
        assertEquals(new NodeUsage(1, 512), a.usage());
    }

    @Test
    void shouldNeverPlaceMoreThanCapacityOnANodeUnderConcurrentProvisions() throws Exception {
        configured.put("a", new NodeCapacity(2, null));
        configured.put("b", new NodeCapacity(2, null));
        configured.put("c", new NodeCapacity(0, null));
        AtomicInteger refusals = new AtomicInteger();
        List<Callable<String>> provisions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            provisions.add(() -> {
                try {
                    return place(null, 512, n -> {
                        // a registration takes a while: the window in which a second choice could see the same count
                        sleep();
                        return register(n, 512);
                    });
                } catch (PlacementRefusedException e) {
                    refusals.incrementAndGet();
                    return null;
                }
            });
        }
        for (Future<String> f : threads.invokeAll(provisions, 30, TimeUnit.SECONDS)) {
            f.get();
        }
        Map<String, NodeUsage> usage = placement.load.byNode();
        assertEquals(2, usage.get("a").runtimes());
        assertEquals(2, usage.get("b").runtimes());
        assertEquals(1, refusals.get());
    }

    @Test
    void shouldPlaceNothingOnANodeWhoseBackendStopsAnsweringUntilItAnswersAgain() {
        configured.put("c", new NodeCapacity(0, null));
        placement.health.probeAll();
        nodes.backend("a").pingFails(new BackendException("Connection refused"));
        assertEquals("a", place(null, 512, n -> n), "not probed again yet: the last result stands");

        clock.advance(Duration.ofSeconds(10));
        placement.health.probeAll();
        assertEquals("b", place(null, 512, n -> n));
        NodeState a = placement.states().get(0);
        assertEquals(new NodeReport(false, NOW.plusSeconds(10), "BackendException: Connection refused"), a.health());
        assertThrows(PlacementRefusedException.class, () -> place("a", 512, n -> n));

        nodes.backend("a").pingFails(null);
        clock.advance(Duration.ofSeconds(10));
        placement.health.probeAll();
        assertEquals("a", place(null, 512, n -> n));
        assertEquals(new NodeReport(true, NOW.plusSeconds(20), null), placement.states().get(0).health());
    }

    @Test
    void shouldNeverPlaceAUserOnANodeClosedToThemButAnAdminThere() {
        TestConfig config = (TestConfig) placement.config;
        nodes.backend("a").type = "cli";
        nodes.backend("b").type = "local";
        config.nodePlacements.put("a", "any");
        configured.put("c", new NodeCapacity(1, null));
        register("c", 512);
        // a and b are unbounded, c is full: only a node of this host would have room
        PlacementRefusedException full = assertThrows(PlacementRefusedException.class,
                () -> place(null, 512, n -> n));
        assertEquals(PlacementRefusedException.Reason.NO_CAPACITY, full.reason());
        assertTrue(full.getMessage().endsWith("MB: c 1/1 runtimes, 512/unbounded MB"),
                "closed nodes are not described: " + full.getMessage());
        assertEquals("a", placement.place(null, 512, "root", Role.ADMIN, n -> n));

        NodeForbiddenException named = assertThrows(NodeForbiddenException.class,
                () -> place("a", 512, n -> n));
        assertEquals("a", named.node());
        assertThrows(NodeForbiddenException.class, () -> placement.place("b", 512, "alice", Role.USER, n -> n));

        config.nodeAllowedUsers.put("b", Set.of("alice"));
        assertEquals("b", place(null, 512, n -> n), "granted: b is hers to use");
        assertEquals("b", placement.place("b", 512, "alice", Role.USER, n -> n));
    }

    @Test
    void shouldRefuseAUserNoNodeIsOpenTo() {
        TestConfig config = (TestConfig) placement.config;
        config.nodeAllowedUsers.put("a", Set.of("bob"));
        config.nodeAllowedUsers.put("b", Set.of("bob"));
        config.nodeAllowedUsers.put("c", Set.of("bob"));
        NodeForbiddenException none = assertThrows(NodeForbiddenException.class,
                () -> place(null, 512, n -> n));
        assertEquals(null, none.node());
        assertEquals("a", placement.place(null, 512, "bob", Role.USER, n -> n));
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
