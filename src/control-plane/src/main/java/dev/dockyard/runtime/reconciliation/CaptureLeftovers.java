package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.placement.NodeHealth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The parts of this process's failed snapshots that its engine did not let it remove. A capture
 * cut off by its node's engine going silent (the soak's node cut, 2026-12-01 02:12) tries to remove
 * its image and workspace copy at once, which fails for the same reason; the reconciler's sweep
 * takes such unrecorded parts only once their process is dead or a capture could no longer be at
 * work (15 minutes), so they outlived the soak's end. This process knows they are abandoned: it
 * removes them itself on every reconciler tick, whoever holds the lease, once the engine answers.
 * A snapshot is forgotten once a look finds none of its parts, and not before {@link #SETTLE}: a
 * commit the engine was still carrying out when its answer was lost shows its image later.
 */
@ApplicationScoped
public class CaptureLeftovers {

    private static final Logger LOG = Logger.getLogger(CaptureLeftovers.class.getName());

    /** How long after a failed capture its parts may still appear (a commit under way). */
    static final Duration SETTLE = Duration.ofMinutes(2);

    /** The abandoned snapshots' ids, by node, with when each was noted. */
    private final Map<String, Map<String, Instant>> byNode = new ConcurrentHashMap<>();

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    NodeHealth health;

    Clock clock = Clock.systemUTC();

    /** One outside a container (unit tests): every node taken as answering. */
    public static CaptureLeftovers on(BackendNodes nodes, DockyardConfig config, Clock clock) {
        CaptureLeftovers leftovers = new CaptureLeftovers();
        leftovers.nodes = nodes;
        leftovers.config = config;
        leftovers.clock = clock;
        return leftovers;
    }

    /** Notes a snapshot whose capture failed and whose parts may be left on {@code node}. */
    public void abandoned(String node, String snapshotId) {
        byNode.computeIfAbsent(node, n -> new ConcurrentHashMap<>()).put(snapshotId, clock.instant());
    }

    /**
     * Removes what was noted, node by node, and forgets a snapshot once its parts are gone; a node
     * known down, or whose engine does not answer, keeps its list. Returns how many are left.
     */
    public int removeAll() {
        int left = 0;
        for (Map.Entry<String, Map<String, Instant>> node : byNode.entrySet()) {
            Map<String, Instant> noted = node.getValue();
            if (noted.isEmpty()) {
                continue;
            }
            RuntimeBackend backend = nodes.on(node.getKey());
            if (health != null && backend.capabilities().unreachableWhenPingFails() && health.knownDown(node.getKey())) {
                // its last probe went unanswered: asked once it is back, not at a connect timeout per tick
                left += noted.size();
                continue;
            }
            Set<String> ids = Set.copyOf(noted.keySet());
            Set<String> seen = new HashSet<>();
            try {
                int removed = backend.sweepCaptures(config.instance(), captured -> {
                    if (!ids.contains(captured.snapshotId())) {
                        return false;
                    }
                    seen.add(captured.snapshotId());
                    return true;
                });
                if (removed > 0) {
                    LOG.info("Removed the parts of " + removed + " failed snapshot(s) on node '" + node.getKey() + "'");
                }
            } catch (RuntimeException e) {
                LOG.fine("The parts of failed snapshots on node '" + node.getKey() + "' are not removed yet: " + e);
                left += noted.size();
                continue;
            }
            // a part seen may have stayed (a sandbox or copier still holds it): looked at again next tick
            Instant settled = clock.instant().minus(SETTLE);
            noted.entrySet().removeIf(e -> !seen.contains(e.getKey()) && e.getValue().isBefore(settled));
            left += noted.size();
        }
        return left;
    }
}
