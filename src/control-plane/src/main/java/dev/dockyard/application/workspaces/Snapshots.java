package dev.dockyard.application.workspaces;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SnapshotCapture;
import dev.dockyard.cluster.Leases;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.lifecycle.Freezes;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.runtime.reconciliation.CaptureLeftovers;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Snapshots and forks (API: {@code POST /runtimes/{id}/snapshots}, {@code /snapshots},
 * {@code "fromSnapshot"} in a provision, {@code POST /runtimes/{id}/fork}).
 *
 * <p>A snapshot is the sandbox's file system at one moment: its container committed to an image
 * (everything outside the workspace: installed packages, home, /tmp) and its workspace volume
 * copied. Processes, the shell's state and memory are not kept: a runtime started from a snapshot
 * boots its executor anew on those files. For the moment to be one, the runtime is held like a
 * migration holds it ({@link RuntimeGates}: the running actions finish, no new action, pause or
 * resume is admitted) and its sandbox is frozen while the copy and the commit are made, then
 * thawed (a paused runtime stays paused).
 *
 * <p>Snapshots are owned by the runtime's user (others get 404) and count against the user's
 * snapshot quota (per user {@code maxSnapshots}/{@code maxSnapshotMb} of {@code PUT
 * /users/{id}/quota}, else {@code dockyard.quota.max-snapshots}, {@code max-snapshot-mb}): over it, 429.
 */
@ApplicationScoped
public class Snapshots {

    private static final Logger LOG = Logger.getLogger(Snapshots.class.getName());
    private static final int MAX_NAME = 200;

    @Inject
    WorkspaceRecords records;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    RuntimeGates gates;

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    AgentCatalog agents;

    @Inject
    Accounts accounts;

    @Inject
    Clock clock;

    @Inject
    Leases leases;

    @Inject
    ProvisioningJournal journal;

    @Inject
    CaptureLeftovers leftovers;

    public List<Snapshot> list(String userId, boolean admin) {
        return records.snapshots(admin ? null : userId);
    }

    /** The snapshot if the caller may see it (its owner, or an admin), else a 404. */
    public Snapshot visible(String id, String userId, boolean admin) {
        return records.snapshot(id).filter(s -> admin || s.userId().equals(userId))
                .orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND, "No snapshot " + id));
    }

    /** Removes the snapshot's image and workspace copy, then its record; 409 while a sandbox runs its image. */
    public void delete(String id, String userId, boolean admin) {
        Snapshot snapshot = visible(id, userId, admin);
        try {
            nodes.on(snapshot.node()).removeSnapshot(snapshot.image(), snapshot.volume());
        } catch (EngineUnreachableException e) {
            // its node's engine is restarting or cut off (the soak, 2026-11-30: a 409 that said to
            // delete runtimes): nothing to change on the caller's side but the time
            throw Refused.ofBackend(e, "Snapshot " + id + " cannot be removed now: " + e.getMessage());
        } catch (BackendException e) {
            throw new Refused(Refused.Reason.CONFLICT, "Snapshot " + id + " cannot be removed now: " + e.getMessage()
                    + "; delete the runtimes started from it first");
        }
        records.forgetSnapshot(id);
    }

    /** Captures a READY or PAUSED runtime of Dockyard's executor (see the class comment). */
    public Snapshot capture(SandboxRuntime runtime, String name) {
        if (name == null || name.isBlank() || name.length() > MAX_NAME || name.chars().anyMatch(Character::isISOControl)) {
            throw new Refused(Refused.Reason.VALIDATION, "name must be 1 to " + MAX_NAME + " printable characters");
        }
        if (runtime.program().isPresent()) {
            throw new Refused(Refused.Reason.CONFLICT, "Runtime " + runtime.id() + " runs its image's own program; "
                    + "only runtimes of Dockyard's executor can be snapshotted");
        }
        requireQuota(runtime.userId(), 0);
        String id = Workspaces.newId("snap-");
        RuntimeBackend backend = nodes.on(runtime.node());
        SnapshotCapture capture;
        long start = System.nanoTime();
        try (RuntimeGates.Pass hold = gates.beginMigration(runtime.id(), config.migrationDrainTimeout())) {
            SandboxRuntime now = runtimes.find(runtime.id()).orElse(runtime);
            if (now.status() != RuntimeStatus.READY && now.status() != RuntimeStatus.PAUSED) {
                throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + runtime.id() + " is " + now.status()
                        + "; only a READY or PAUSED runtime can be snapshotted")
                        .with("runtimeStatus", Jsonp.createValue(now.status().name()));
            }
            boolean wasPaused = now.status() == RuntimeStatus.PAUSED;
            if (wasPaused) {
                backend.pause(now.containerName());
            } else {
                Freezes.freeze(backend, journal, now, "a snapshot", PauseReason.IDLE);
            }
            SnapshotCapture made = null;
            try {
                made = backend.capture(now.containerName(), id, labels(now, id));
            } catch (EngineUnreachableException e) {
                // its own removal of what the capture made met the same silence
                leftBehind(now, id);
                throw e;
            } finally {
                if (!wasPaused) {
                    try {
                        // one the engine could not thaw (node2 cut during a fork, the soak of 2026-11-30 23:25)
                        Freezes.thaw(backend, journal, now, "a snapshot");
                    } catch (RuntimeException e) {
                        if (made != null) {
                            // captured, and never to be recorded: its parts are removed once the engine answers
                            leftBehind(now, id);
                        }
                        throw e;
                    }
                }
            }
            capture = made;
        } catch (RuntimeGates.RuntimeBusyException e) {
            throw new Refused(e.migrating() ? Refused.Reason.RUNTIME_MIGRATING : Refused.Reason.CONFLICT,
                    "Runtime " + runtime.id() + " cannot be snapshotted now: " + e.getMessage());
        } catch (SandboxNotRunningException e) {
            throw outages.stopped(runtime.id(), "snapshotted");
        } catch (SandboxBusyException e) {
            throw ExecutorOutages.tooBusyToFreeze(runtime.id(), "snapshotted", e);
        } catch (BackendException e) {
            throw Refused.ofBackend(e, "The snapshot failed: " + e.getMessage());
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        Snapshot snapshot = new Snapshot(id, runtime.userId(), name, runtime.id(), runtime.node(), capture.image(),
                capture.volume(), capture.sizeBytes(), capture.diskMb(), clock.instant());
        try {
            records.add(snapshot);
            requireQuota(runtime.userId(), -1);
        } catch (RuntimeException e) {
            removeQuietly(snapshot);
            throw e;
        }
        LOG.info("Snapshot " + id + " of " + runtime.id() + ": " + capture.sizeBytes() + " bytes in " + tookMs + " ms");
        return snapshot;
    }

    private void leftBehind(SandboxRuntime runtime, String snapshotId) {
        if (leftovers != null) {
            leftovers.abandoned(runtime.node(), snapshotId);
        }
    }

    private Map<String, String> labels(SandboxRuntime runtime, String snapshotId) {
        Map<String, String> labels = new HashMap<>(Labels.of(runtime.id(), runtime.conversationId(), config.instance()));
        labels.put(Labels.SNAPSHOT_ID, snapshotId);
        // recorded only once the capture ends: a process killed meanwhile leaves parts the reconciler finds by this
        labels.put(Labels.CAPTURED_BY, leases.me());
        // the image carries the user's files (the home directory among them): theirs alone to run
        labels.put(Labels.OWNER, runtime.userId());
        return labels;
    }

    /**
     * Refused with 429 when the user's snapshots reach a limit: {@code adding} 0 before a capture
     * (one more must fit in the count, and the size must not be spent), -1 after it is recorded
     * (then the new one is counted already and must not have gone over the size).
     */
    private void requireQuota(String userId, int adding) {
        List<Snapshot> owned = records.snapshots(userId);
        long count = owned.size();
        long mb = owned.stream().mapToLong(Snapshot::sizeBytes).sum() / (1024 * 1024);
        Optional<UserAccount> account = accounts.find(userId);
        int maxCount = account.map(UserAccount::maxSnapshots).orElse(config.quotaMaxSnapshots());
        int maxMb = account.map(UserAccount::maxSnapshotMb).orElse(config.quotaMaxSnapshotMb());
        if (adding == 0 && count >= maxCount) {
            throw quota("maxSnapshots", maxCount, count);
        }
        if ((adding == 0 && mb >= maxMb) || (adding < 0 && mb > maxMb)) {
            throw quota("maxSnapshotMb", maxMb, mb);
        }
    }

    private static Refused quota(String limit, long allowed, long inUse) {
        return new Refused(Refused.Reason.QUOTA_EXCEEDED, "Quota " + limit + " exceeded: " + inUse + " in use, "
                + allowed + " allowed; delete snapshots first")
                .with("limit", Jsonp.createValue(limit))
                .with("allowed", Jsonp.createValue(allowed))
                .with("inUse", Jsonp.createValue(inUse));
    }

    private void removeQuietly(Snapshot snapshot) {
        try {
            nodes.on(snapshot.node()).removeSnapshot(snapshot.image(), snapshot.volume());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove snapshot " + snapshot.id(), e);
        }
        try {
            records.forgetSnapshot(snapshot.id());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "forgetting " + snapshot.id(), e);
        }
    }

    /**
     * The first half of a fork (a second runtime for {@code conversationId} with an identical
     * workspace and file system): a snapshot of {@code source} (kept, named after the fork, counted
     * like any), and the request for a runtime started from it with the source's settings, which
     * {@code application.runtimes.RuntimeService#fork} provisions.
     */
    public ProvisioningRequest forkRequest(SandboxRuntime source, String conversationId, String userId, Role role) {
        Snapshot snapshot = capture(source, "fork of " + source.id() + " for " + conversationId);
        AgentProfile agent = agents.find(source.agent()).or(() -> agents.find(agents.defaultAgent()))
                .orElseThrow(() -> new Refused(Refused.Reason.INTERNAL, "no agent profile for the fork"));
        return new ProvisioningRequest(userId, role, conversationId, agent,
                new LlmSettings(source.llmModel(), source.llmBaseUrl(), source.llmApiKey()), snapshot.image(),
                source.cpus(), source.memoryMb(), source.timeoutSeconds(), source.environment(),
                // the snapshot's image holds the source's extra dependencies already
                ExtraDependencies.NONE, source.plugins(), null, false, null, null, Map.of(),
                // a new conversation: the configured idle lifecycle, not the source's
                null, WorkspaceRequest.of(0, null, snapshot.id()))
                // the fork may reach what the source could, no more; it is isolated like its source
                .withEgress(source.egress())
                .withIsolation(source.isolation())
                // and its executor starts as the source's did, whatever the node's setting now
                .withExecutorServer(source.executorServer().orElse(null));
    }
}
