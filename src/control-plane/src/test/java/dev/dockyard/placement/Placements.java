package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.runtime.RuntimeRepository;
import java.time.Clock;
import java.util.Map;

/** Placements over fake nodes for tests of the classes that place runtimes. */
public final class Placements {

    private Placements() {
    }

    /** Placement over {@code nodes} with the given capacities (a node not named: unbounded). */
    public static Placement over(BackendNodes nodes, RuntimeRepository runtimes, Clock clock,
                                 Map<String, NodeCapacity> capacities) {
        return over(nodes, runtimes, Map::of, clock, capacities);
    }

    /** Placement over {@code nodes} with the given capacities, counting {@code warm} members' memory. */
    public static Placement over(BackendNodes nodes, RuntimeRepository runtimes, WarmMembers warm, Clock clock,
                                 Map<String, NodeCapacity> capacities) {
        return over(nodes, runtimes, warm, clock, capacities, new TestConfig());
    }

    /**
     * Placement over {@code nodes} reading its per-node settings ({@code placement}, {@code allowed-users})
     * from {@code config}.
     */
    public static Placement over(BackendNodes nodes, RuntimeRepository runtimes, WarmMembers warm, Clock clock,
                                 Map<String, NodeCapacity> capacities, TestConfig config) {
        NodeHealth health = health(nodes, clock);
        NodeLoad load = new NodeLoad();
        load.runtimes = runtimes;
        load.nodes = nodes;
        load.warm = warm;
        Placement placement = new Placement();
        placement.nodes = nodes;
        placement.health = health;
        placement.load = load;
        placement.config = config;
        placement.access = access(nodes, config);
        placement.capacities = new NodeCapacities() {
            @Override
            public NodeCapacity of(String node) {
                return capacities.getOrDefault(node, NodeCapacity.UNBOUNDED);
            }
        };
        return placement;
    }

    /** The turns to boot of every node, bounded as {@code config} says (by default twice the processors). */
    public static BootTurns turns(TestConfig config) {
        BootTurns turns = new BootTurns();
        turns.config = config;
        return turns;
    }

    /** The node access rule over {@code nodes}, reading {@code allowed-users} from {@code config}. */
    public static NodeAccess access(BackendNodes nodes, TestConfig config) {
        NodeAccess access = new NodeAccess();
        access.nodes = nodes;
        access.config = config;
        return access;
    }

    /** The health of {@code nodes}, probed on the test's own call. */
    public static NodeHealth health(BackendNodes nodes, Clock clock) {
        NodeHealth health = new NodeHealth();
        health.nodes = nodes;
        health.clock = clock;
        health.config = new TestConfig();
        return health;
    }

    /** Placement over {@code nodes}, none of them bounded. */
    public static Placement unbounded(BackendNodes nodes, RuntimeRepository runtimes, Clock clock) {
        return over(nodes, runtimes, clock, Map.of());
    }
}
