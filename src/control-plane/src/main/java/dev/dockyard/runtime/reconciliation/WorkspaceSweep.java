package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.CapturedSnapshot;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.WorkspaceVolume;
import dev.dockyard.cluster.Leases;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.placement.NodeHealth;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The reconciler's orphan sweep for workspace volumes (run after each pass, no transaction open):
 * a labelled workspace volume of this control plane that no container mounts, whose runtime is not
 * live, that no kept workspace or snapshot record names (nor the runtime a workspace is being kept
 * from), and that is older than the grace period, is removed with its disk. Volumes are per node;
 * a node whose volumes cannot be listed, or a database that cannot be read, is left alone: an
 * incomplete view must never look like orphans. Sandbox networks ({@code EgressPolicy}) whose
 * sandbox is gone, and home volumes of read-only sandboxes that no container mounts, are swept on
 * the same pass, node by node, as are the parts of snapshots whose capture was cut short by the
 * death of its control plane ({@link CapturedSnapshot}) and the workspace copiers it left running.
 */
@ApplicationScoped
public class WorkspaceSweep {

    private static final Logger LOG = Logger.getLogger(WorkspaceSweep.class.getName());
    /**
     * Longer than a snapshot's capture takes: a copy of the workspace (a copier may take ten
     * minutes), a commit and the home written in (each an engine call of a minute at most).
     */
    static final Duration LONGEST_CAPTURE = Duration.ofMinutes(15);

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

    @Inject
    Leases leases;

    /** Returns how many volumes were removed. */
    public int sweep() {
        Set<String> spared = new HashSet<>();
        Set<String> recorded;
        try {
            spared.addAll(records.protectedNames());
            journal.live().stream().map(SandboxRuntime::id).forEach(spared::add);
            recorded = records.snapshots(null).stream().map(Snapshot::id).collect(Collectors.toSet());
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
            try {
                // a killed control plane's helper first: the volumes it mounts count as in use
                backend.sweepHelpers(config.instance(), cutoff);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Copier sweep of node '" + node + "' skipped: " + e.getMessage());
            }
            try {
                backend.sweepCaptures(config.instance(), captured -> abandoned(captured, recorded, cutoff));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Snapshot sweep of node '" + node + "' skipped: " + e.getMessage());
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

    /**
     * Whether a snapshot's parts belong to a capture nobody will record: none is recorded, they are
     * older than the grace, and the process that made them is dead, or they are older than any
     * capture takes (a copy waits 10 minutes at most, a commit the engine client's minute): a
     * capture whose own cleanup failed (its engine stopped meanwhile) left them. The record is read
     * once more before the answer: a capture recorded since the pass began stays.
     */
    private boolean abandoned(CapturedSnapshot captured, Set<String> recorded, Instant cutoff) {
        if (recorded.contains(captured.snapshotId()) || captured.createdAt().isAfter(cutoff)) {
            return false;
        }
        boolean gone = captured.createdAt().isBefore(cutoff.minus(LONGEST_CAPTURE))
                || (captured.process() != null && !leases.alive(captured.process()));
        return gone && records.snapshot(captured.snapshotId()).isEmpty();
    }
}
