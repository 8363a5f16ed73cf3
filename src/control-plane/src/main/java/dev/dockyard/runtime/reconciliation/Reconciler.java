package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Compares the backend's labelled sandboxes with the live runtimes, at startup and every ten
 * seconds (a non-persistent EJB timer: each control plane sweeps what it sees).
 *
 * <ul>
 *   <li>A labelled sandbox whose runtime is not live is removed, once it is older than the grace
 *       period (so a sandbox whose runtime is being stopped right now is left to its owner).</li>
 *   <li>A runtime still starting that no provisioning of this control plane is working on (the
 *       control plane was restarted, or killed, mid-provisioning) becomes ERROR and its sandbox is
 *       removed.</li>
 *   <li>A READY or PAUSED runtime whose sandbox is gone or stopped becomes
 *       ERROR_RUNTIME_DISCONNECTED.</li>
 * </ul>
 * Each backend node is compared on its own, against the runtimes placed on it. When a node cannot
 * be listed, the pass does nothing on that node: an incomplete view must never look like missing
 * sandboxes.
 */
@Singleton
@Startup
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());
    private static final Set<RuntimeStatus> STARTING = EnumSet.of(RuntimeStatus.STARTING_RUNTIME,
            RuntimeStatus.BUILDING_RUNTIME, RuntimeStatus.RUNTIME_STARTED);
    private static final Set<RuntimeStatus> SERVING = EnumSet.of(RuntimeStatus.READY, RuntimeStatus.PAUSED);

    @Inject
    BackendNodes nodes;

    @Inject
    ProvisioningJournal journal;

    @Inject
    Provisioner provisioner;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    /** What one pass did, for logs and tests; {@code skipped} when some node's view was incomplete. */
    public record Report(int sandboxesSeen, int orphansRemoved, int interruptedFailed, int disconnected,
                         boolean skipped) {
        Report plus(Report other) {
            return new Report(sandboxesSeen + other.sandboxesSeen, orphansRemoved + other.orphansRemoved,
                    interruptedFailed + other.interruptedFailed, disconnected + other.disconnected,
                    skipped || other.skipped);
        }
    }

    @PostConstruct
    void atStartup() {
        pass();
    }

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false, info = "dockyard-reconciler")
    void periodically() {
        pass();
    }


    public Report pass() {
        List<SandboxRuntime> live;
        try {
            live = journal.live();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Reconciliation skipped, the database cannot be read: " + e.getMessage());
            return new Report(0, 0, 0, 0, true);
        }
        Report total = new Report(0, 0, 0, 0, false);
        for (String node : nodes.names()) {
            total = total.plus(pass(node, live.stream().filter(r -> node.equals(nodeOf(r))).toList()));
        }
        if (total.orphansRemoved() + total.interruptedFailed() + total.disconnected() > 0) {
            LOG.info("Reconciliation: " + total);
        }
        return total;
    }

    private String nodeOf(SandboxRuntime runtime) {
        return runtime.node() == null ? nodes.defaultNode() : runtime.node();
    }

    /** One node: its sandboxes against the live runtimes placed on it. */
    private Report pass(String node, List<SandboxRuntime> live) {
        RuntimeBackend backend = nodes.on(node);
        List<ManagedSandbox> sandboxes;
        try {
            sandboxes = backend.listManaged(config.instance());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Reconciliation of node '" + node + "' skipped, the view is incomplete: "
                    + e.getMessage());
            return new Report(0, 0, 0, 0, true);
        }
        Instant now = clock.instant();
        Duration grace = config.reconcilerGrace();
        Map<String, SandboxRuntime> liveById = new HashMap<>();
        live.forEach(r -> liveById.put(r.id(), r));
        Map<String, ManagedSandbox> sandboxByRuntime = new HashMap<>();
        sandboxes.forEach(s -> sandboxByRuntime.put(s.runtimeId(), s));

        int interrupted = 0;
        int disconnected = 0;
        for (SandboxRuntime runtime : live) {
            try {
                if (STARTING.contains(runtime.status()) && !provisioner.isInFlight(runtime.id())
                        && runtime.updatedAt().plus(grace).isBefore(now)) {
                    if (journal.transitionIf(runtime.id(), STARTING, RuntimeStatus.ERROR, "Provisioning was interrupted "
                            + "at " + runtime.status() + ": no control plane is bringing this runtime up any more "
                            + "(it was restarted or killed); the sandbox was removed")) {
                        backend.remove(runtime.containerName());
                        liveById.remove(runtime.id());
                        interrupted++;
                    }
                } else if (SERVING.contains(runtime.status())) {
                    ManagedSandbox sandbox = sandboxByRuntime.get(runtime.id());
                    if (sandbox == null || !sandbox.running() && runtime.status() == RuntimeStatus.READY) {
                        String why = sandbox == null ? "its container is gone" : "its container stopped";
                        // only from the status this pass saw: a pause recorded since is not a disconnection
                        if (journal.transitionIf(runtime.id(), EnumSet.of(runtime.status()),
                                RuntimeStatus.ERROR_RUNTIME_DISCONNECTED,
                                "The runtime is disconnected: " + why)) {
                            disconnected++;
                        }
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not reconcile runtime " + runtime.id(), e);
            }
        }

        int orphans = 0;
        for (ManagedSandbox sandbox : sandboxes) {
            // owned by a live runtime placed on this node: a migration's old sandbox, whose runtime
            // is now live elsewhere, is an orphan here
            boolean owned = sandbox.runtimeId() != null && (liveById.containsKey(sandbox.runtimeId())
                    || provisioner.isInFlight(sandbox.runtimeId()));
            if (!owned && sandbox.createdAt().plus(grace).isBefore(now)) {
                try {
                    backend.remove(sandbox.name());
                    orphans++;
                    LOG.info("Removed orphan sandbox " + sandbox.name() + " on node '" + node + "' (runtime "
                            + sandbox.runtimeId() + " is not live there)");
                } catch (BackendException e) {
                    LOG.log(Level.WARNING, "Could not remove orphan sandbox " + sandbox.name(), e);
                }
            }
        }
        return new Report(sandboxes.size(), orphans, interrupted, disconnected, false);
    }
}
