package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.WorkspaceVolume;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.placement.NodeHealth;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The reconciler's orphan sweep for workspace volumes (run after each pass, no transaction open):
 * a labelled workspace volume of this control plane that no container mounts, whose runtime is not
 * live, that no kept workspace or snapshot record names (nor the runtime a workspace is being kept
 * from), and that is older than the grace period, is removed with its disk. Volumes are per node;
 * a node whose volumes cannot be listed, or a database that cannot be read, is left alone: an
 * incomplete view must never look like orphans. Sandbox networks ({@code EgressPolicy}) whose
 * sandbox is gone, and home volumes of read-only sandboxes that no container mounts, are swept on
 * the same pass, node by node.
 */
@ApplicationScoped
public class WorkspaceSweep {

    private static final Logger LOG = Logger.getLogger(WorkspaceSweep.class.getName());

    @Inject
    BackendNodes nodes;

    @Inject
    WorkspaceRecords records;

    @Inject
    ProvisioningJournal journal;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    NodeHealth health;

    /** Returns how many volumes were removed. */
    public int sweep() {
        Set<String> spared = new HashSet<>();
        try {
            spared.addAll(records.protectedNames());
            journal.live().stream().map(SandboxRuntime::id).forEach(spared::add);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Workspace sweep skipped, the database cannot be read: " + e.getMessage());
            return 0;
        }
        Instant cutoff = clock.instant().minus(config.reconcilerGrace());
        int removed = 0;
        for (String node : nodes.names()) {
            RuntimeBackend backend = nodes.on(node);
            if (backend.capabilities().unreachableWhenPingFails() && health.knownDown(node)) {
                // a node whose last probe went unanswered: swept once it is back, not after retries
                continue;
            }
            List<WorkspaceVolume> volumes;
            try {
                volumes = backend.listWorkspaces(config.instance());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Workspace sweep of node '" + node + "' skipped: " + e.getMessage());
                continue;
            }
            for (WorkspaceVolume volume : volumes) {
                if (volume.inUse() || spared.contains(volume.name())
                        || (volume.runtimeId() != null && spared.contains(volume.runtimeId()))
                        || volume.createdAt().isAfter(cutoff)) {
                    continue;
                }
                try {
                    backend.removeWorkspace(volume.name());
                    removed++;
                    LOG.info("Removed orphan workspace volume " + volume.name() + " on node '" + node + "'");
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "removing " + volume.name(), e);
                }
            }
            try {
                // a sandbox's own network (egress policy) whose sandbox is gone, with its packet-filter rules
                backend.sweepNetworks(config.instance(), cutoff);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Network sweep of node '" + node + "' skipped: " + e.getMessage());
            }
            try {
                // a read-only sandbox's home volume whose sandbox is gone
                backend.sweepHomes(config.instance(), cutoff);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Home volume sweep of node '" + node + "' skipped: " + e.getMessage());
            }
        }
        return removed;
    }
}
