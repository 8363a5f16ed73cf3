package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Chooses the node of a new runtime: among the healthy nodes that can take it (a free runtime
 * slot and its memory free), the one with the most free runtime slots, then the most free memory,
 * then the first in configured order; unbounded counts as more than any number, so with no
 * capacities configured every runtime goes to the first healthy node, as before placement existed.
 * A request may name its node: it gets that node or a refusal, never another one. A node of
 * {@code dockyard.node.<name>.placement=explicit} takes only runtimes that name it (the default
 * of {@code cli} nodes, which have no sandbox); {@code any} (the default) takes any. Only nodes
 * {@link NodeAccess} opens to the caller are candidates; naming another is a {@link NodeForbiddenException}.
 *
 * <p>A choice and the registration of the runtime it was made for happen under one lock, so two
 * provisions can never both take a node's last slot; without any capacity configured nothing is
 * counted and nothing is locked. The lock is this control plane's: several control planes sharing
 * one database may together overfill a node by the registrations in flight at one moment.
 */
@ApplicationScoped
public class Placement {

    @Inject
    BackendNodes nodes;

    @Inject
    NodeCapacities capacities;

    @Inject
    NodeHealth health;

    @Inject
    NodeLoad load;

    @Inject
    DockyardConfig config;

    @Inject
    NodeAccess access;

    /** {@code dockyard.node.<name>.placement}'s value for a node that takes only runtimes naming it. */
    public static final String EXPLICIT = "explicit";

    private final ReentrantLock placing = new ReentrantLock();

    /** Every node as it is now: capacity, what it holds, health. */
    public List<NodeState> states() {
        return states(load.byNode());
    }

    private List<NodeState> states(Map<String, NodeUsage> usage) {
        return nodes.names().stream().map(name -> new NodeState(name, nodes.on(name).name(), capacities.of(name),
                usage.getOrDefault(name, NodeUsage.NONE), health.report(name))).toList();
    }

    /**
     * Chooses a node for a runtime of {@code memoryMb} ({@code named}: that node only, null: any
     * the user may use) and registers the runtime there through {@code register}, under the
     * placement lock.
     *
     * @throws BackendNodes.UnknownNodeException when {@code named} is not a configured node
     * @throws NodeForbiddenException            when the user may not use {@code named} (or any node)
     * @throws PlacementRefusedException         when no node can take it now
     */
    public <T> T place(String named, int memoryMb, String userId, Role role, Function<String, T> register) {
        if (named != null) {
            nodes.on(named);
            access.require(named, userId, role);
        }
        boolean counted = nodes.names().stream().anyMatch(n -> capacities.of(n).bounded());
        try {
            if (!counted) {
                return register.apply(choose(candidates(states(Map.of()), named, userId, role), named, memoryMb));
            }
            placing.lock();
            try {
                return register.apply(choose(candidates(states(), named, userId, role), named, memoryMb));
            } finally {
                placing.unlock();
            }
        } catch (PlacementRefusedException e) {
            throw e.reason() == PlacementRefusedException.Reason.TOO_LARGE ? e
                    : e.retryAfter(config.placementRetryAfterSeconds());
        }
    }

    /**
     * A runtime's call to {@code node} found its engine not answering: the node is probed now rather
     * than at its next turn, so that no runtime is placed there until a probe finds it answering
     * again (one connection reset under load is no outage: the probe decides). In the soak's node
     * cut (2026-11-30) placement went on choosing the cut node for up to a probe interval, and every
     * provision placed there failed within a second, its client's retry placed there again.
     */
    public void unreachable(String node) {
        health.sawUnreachable(node);
        health.probe(node);
    }

    /**
     * Whether {@code node} has a runtime slot free now (always, when its runtimes are not bounded).
     * Unlocked: a warm claim asks it before it takes a member (whose memory is counted already), and
     * claims in flight at the same moment may together take one slot too many, as several control
     * planes may.
     */
    public boolean hasFreeSlot(String node) {
        Integer max = capacities.of(node).maxRuntimes();
        return max == null || load.byNode().getOrDefault(node, NodeUsage.NONE).runtimes() < max;
    }

    /**
     * The memory (MB) {@code node} has left for warm pool members to boot into (negative when it is
     * over), or empty when its memory is not bounded.
     */
    public OptionalLong freeMemoryMb(String node) {
        Integer max = capacities.of(node).maxMemoryMb();
        if (max == null) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(max - load.byNode().getOrDefault(node, NodeUsage.NONE).memoryMb());
    }

    /**
     * The nodes a runtime may go to: one naming a node (checked by {@link NodeAccess} already) may go
     * to any; one naming none, only to a node the user may use that is not configured
     * {@code dockyard.node.<name>.placement=explicit} (a cli node's default).
     */
    private List<NodeState> candidates(List<NodeState> states, String named, String userId, Role role) {
        if (named != null) {
            return states;
        }
        // a node the user may not use is never chosen for them, whatever its room or its placement
        List<NodeState> usable = states.stream().filter(s -> access.mayUse(s.name(), userId, role)).toList();
        if (usable.isEmpty()) {
            throw new NodeForbiddenException(userId);
        }
        List<NodeState> open = usable.stream().filter(s -> !explicitOnly(s)).toList();
        if (open.isEmpty()) {
            // like a runtime too large for every node, a retry cannot help: a 400 saying what would
            throw new PlacementRefusedException(PlacementRefusedException.Reason.TOO_LARGE, null, "every backend node "
                    + "takes only runtimes that name it (placement=explicit): name one of " + usable.stream()
                    .map(NodeState::name).toList());
        }
        return open;
    }

    private boolean explicitOnly(NodeState node) {
        return config.nodePlacement(node.name()).map(EXPLICIT::equalsIgnoreCase)
                .orElse(NodeType.ofLabel(node.type()).orElse(null) == NodeType.CLI);
    }

    /** The node for a runtime of {@code memoryMb} among {@code states} (configured order), or why none. */
    static String choose(List<NodeState> states, String named, int memoryMb) {
        List<NodeState> asked = named == null ? states : states.stream().filter(s -> s.name().equals(named)).toList();
        if (asked.stream().noneMatch(s -> s.capacity().maxMemoryMb() == null || s.capacity().maxMemoryMb() >= memoryMb)) {
            throw new PlacementRefusedException(PlacementRefusedException.Reason.TOO_LARGE, named,
                    "a runtime of " + memoryMb + " MB is more than " + (named == null ? "any backend node" : "node '"
                            + named + "'") + " may hold (max-memory-mb: " + asked.stream().map(s -> s.name() + " "
                            + s.capacity().maxMemoryMb()).collect(Collectors.joining(", ")) + ")");
        }
        if (named != null) {
            NodeState node = asked.get(0);
            if (!node.health().healthy()) {
                throw new PlacementRefusedException(PlacementRefusedException.Reason.NODE_UNHEALTHY, named,
                        "backend node '" + named + "' fails its health check: " + node.health().error());
            }
            if (!node.fits(memoryMb)) {
                throw new PlacementRefusedException(PlacementRefusedException.Reason.NO_CAPACITY, named,
                        "backend node '" + named + "' has no room for a runtime of " + memoryMb + " MB ("
                                + load(node) + ")");
            }
            return named;
        }
        List<NodeState> healthy = states.stream().filter(s -> s.health().healthy()).toList();
        if (healthy.isEmpty()) {
            throw new PlacementRefusedException(PlacementRefusedException.Reason.NODE_UNHEALTHY, null,
                    "no backend node is healthy: " + states.stream().map(s -> s.name() + ": " + s.health().error())
                            .collect(Collectors.joining("; ")));
        }
        NodeState best = null;
        for (NodeState candidate : healthy) {
            if (candidate.fits(memoryMb) && (best == null || roomier(candidate, best))) {
                best = candidate;
            }
        }
        if (best == null) {
            throw new PlacementRefusedException(PlacementRefusedException.Reason.NO_CAPACITY, null,
                    "no healthy backend node has room for a runtime of " + memoryMb + " MB: "
                            + healthy.stream().map(s -> s.name() + " " + load(s)).collect(Collectors.joining("; ")));
        }
        return best.name();
    }

    /** Strictly more free slots, or as many and strictly more free memory: ties keep the earlier node. */
    private static boolean roomier(NodeState a, NodeState b) {
        return a.freeRuntimes() != b.freeRuntimes() ? a.freeRuntimes() > b.freeRuntimes()
                : a.freeMemoryMb() > b.freeMemoryMb();
    }

    private static String load(NodeState s) {
        return s.usage().runtimes() + "/" + limit(s.capacity().maxRuntimes()) + " runtimes, " + s.usage().memoryMb()
                + "/" + limit(s.capacity().maxMemoryMb()) + " MB";
    }

    private static String limit(Integer max) {
        return max == null ? "unbounded" : String.valueOf(max);
    }
}
