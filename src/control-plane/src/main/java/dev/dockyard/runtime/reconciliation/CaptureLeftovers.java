package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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
 */
@ApplicationScoped
public class CaptureLeftovers {

    private static final Logger LOG = Logger.getLogger(CaptureLeftovers.class.getName());

    /** The abandoned snapshots' ids, by node. */
    private final Map<String, Set<String>> byNode = new ConcurrentHashMap<>();

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    /** One outside a container (unit tests). */
    public static CaptureLeftovers on(BackendNodes nodes, DockyardConfig config) {
        CaptureLeftovers leftovers = new CaptureLeftovers();
        leftovers.nodes = nodes;
        leftovers.config = config;
        return leftovers;
    }

    /** Notes a snapshot whose capture failed and whose parts may be left on {@code node}. */
    public void abandoned(String node, String snapshotId) {
        byNode.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(snapshotId);
    }

    /** Removes what was noted, node by node; a node whose engine still does not answer keeps its list. Returns how many are left. */
    public int removeAll() {
        int left = 0;
        for (Map.Entry<String, Set<String>> node : byNode.entrySet()) {
            Set<String> ids = Set.copyOf(node.getValue());
            if (ids.isEmpty()) {
                continue;
            }
            try {
                int removed = nodes.on(node.getKey()).sweepCaptures(config.instance(),
                        captured -> ids.contains(captured.snapshotId()));
                node.getValue().removeAll(ids);
                if (removed > 0) {
                    LOG.info("Removed the parts of " + removed + " failed snapshot(s) on node '" + node.getKey() + "'");
                }
            } catch (RuntimeException e) {
                left += ids.size();
                LOG.fine("The parts of failed snapshots on node '" + node.getKey() + "' are not removed yet: " + e);
            }
        }
        return left;
    }
}
