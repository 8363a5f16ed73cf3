package dev.dockyard.application.workspaces;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Kept workspaces (API: {@code DELETE /runtimes/{id}?keepWorkspace=true}, {@code "workspace"} in a
 * provision, {@code /workspaces}). A runtime's {@code /workspace} is a volume of its own, which goes
 * with the runtime unless it is kept: then it moves to a volume named after the kept workspace and
 * a record makes its owner the runtime's user. A kept workspace is mounted by at most one live
 * runtime at a time; that runtime deleted without {@code keepWorkspace} takes it along, deleted
 * with it gives it back. Others' workspaces answer 404, like unknown ones.
 */
@ApplicationScoped
public class Workspaces {

    private static final Logger LOG = Logger.getLogger(Workspaces.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    @Inject
    WorkspaceRecords records;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    Provisioner provisioner;

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    static String newId(String prefix) {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return prefix + HexFormat.of().formatHex(bytes);
    }

    /** The caller's kept workspaces (an admin's: everyone's). */
    public List<KeptWorkspace> list(String userId, boolean admin) {
        return records.workspaces(admin ? null : userId);
    }

    /** The kept workspace if the caller may see it (its owner, or an admin), else a 404. */
    public KeptWorkspace visible(String id, String userId, boolean admin) {
        return records.workspace(id).filter(w -> admin || w.userId().equals(userId))
                .orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND, "No workspace " + id));
    }

    /** Whether a live runtime mounts it now. */
    public boolean inUse(KeptWorkspace workspace) {
        return records.inUse(workspace.id(), clock.instant());
    }

    /** Removes a kept workspace and its volume; refused while a live runtime mounts it. */
    public void delete(String id, String userId, boolean admin) {
        KeptWorkspace workspace = visible(id, userId, admin);
        if (inUse(workspace)) {
            throw new Refused(Refused.Reason.CONFLICT, "Workspace " + id + " is mounted by runtime "
                    + workspace.attachedRuntime() + "; delete that runtime first");
        }
        try {
            nodes.on(workspace.node()).removeWorkspace(workspace.volume());
        } catch (BackendException e) {
            throw new Refused(Refused.Reason.CONFLICT, "Workspace " + id + " cannot be removed now: " + e.getMessage());
        }
        records.forget(id);
    }

    /**
     * Deletes a runtime but keeps its workspace, owned by the runtime's user: the record first (so
     * the reconciler's sweep spares the volume while it moves), then the runtime stops, its sandbox
     * goes and its volume moves to the kept name. A workspace it had mounted is simply given back.
     */
    public KeptWorkspace keep(SandboxRuntime runtime) {
        if (runtime.program().isPresent()) {
            throw new Refused(Refused.Reason.CONFLICT, "Runtime " + runtime.id() + " runs its image's own program: "
                    + "its files are in its container, not on a workspace volume, and cannot be kept");
        }
        if (runtime.status().isStarting()) {
            // its provisioning would remove what it built meanwhile: there is nothing worth keeping yet
            throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + runtime.id() + " is still "
                    + runtime.status() + "; delete it without keepWorkspace, or wait until it is READY")
                    .with("runtimeStatus", Jsonp.createValue(runtime.status().name()));
        }
        RuntimeBackend backend = nodes.on(runtime.node());
        SandboxWorkspace mounted = runtime.workspace();
        if (mounted.kind() == SandboxWorkspace.Kind.MOUNT) {
            Optional<KeptWorkspace> existing = records.workspaceOnVolume(mounted.volume());
            if (existing.isPresent()) {
                provisioner.stopKeepingWorkspace(runtime.id(), mounted.volume(), Map.of());
                records.attach(existing.get().id(), runtime.id(), null, clock.instant());
                measure(existing.get(), backend);
                return records.workspace(existing.get().id()).orElse(existing.get());
            }
        }
        if (runtime.status().isLive() && backend.workspaceVolume(runtime.containerName()) == null) {
            throw new Refused(Refused.Reason.CONFLICT, "Runtime " + runtime.id() + " has no workspace volume "
                    + "(it was created before workspaces were volumes); download its files instead");
        }
        String id = newId("ws-");
        String volume = "dockyard-kept-" + id;
        KeptWorkspace workspace = new KeptWorkspace(id, runtime.userId(), volume, runtime.node(), runtime.id(),
                clock.instant());
        records.add(workspace);
        Map<String, String> labels = new HashMap<>(Labels.of(runtime.id(), runtime.conversationId(),
                config.instance()));
        String kept;
        try {
            kept = provisioner.stopKeepingWorkspace(runtime.id(), volume, labels);
        } catch (BackendException e) {
            // the runtime is stopped; its volume, if not moved, is spared by the sweep (the record names its runtime)
            LOG.log(Level.WARNING, "Keeping the workspace of " + runtime.id() + " failed", e);
            throw Refused.ofBackend(e, "The runtime was stopped but its workspace could not "
                    + "be kept: " + e.getMessage());
        }
        if (kept == null) {
            records.forget(id);
            throw new Refused(Refused.Reason.CONFLICT, "Runtime " + runtime.id() + " had no workspace volume left "
                    + "to keep");
        }
        measure(workspace, backend);
        return records.workspace(id).orElse(workspace);
    }

    private void measure(KeptWorkspace workspace, RuntimeBackend backend) {
        try {
            long bytes = backend.workspaceBytes(workspace.volume());
            records.measured(workspace.id(), bytes, 0);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "measuring " + workspace.volume(), e);
        }
    }

    /**
     * After a runtime was deleted without keeping its workspace: a kept workspace it mounted goes
     * with it (a volume not kept is removed with its runtime).
     */
    public void deletedWithRuntime(SandboxRuntime runtime) {
        SandboxWorkspace mounted = runtime.workspace();
        if (mounted.kind() != SandboxWorkspace.Kind.MOUNT) {
            return;
        }
        records.workspaceOnVolume(mounted.volume()).filter(w -> runtime.id().equals(w.attachedRuntime()))
                .ifPresent(w -> {
                    try {
                        nodes.on(w.node()).removeWorkspace(w.volume());
                        records.forget(w.id());
                    } catch (BackendException e) {
                        LOG.warning("Could not remove workspace " + w.id() + " with runtime " + runtime.id() + ": "
                                + e.getMessage());
                    }
                });
    }

    /**
     * Resolves a provision's {@code workspace} or {@code fromSnapshot} (owned by the caller, else
     * 404) into where and what the sandbox mounts; a kept workspace is claimed here (409 while a
     * live runtime mounts it). Returns the request as the provisioner takes it and the claim to
     * settle with {@link #claimed} once the runtime is registered (null when nothing was claimed).
     */
    public Resolved resolve(ProvisioningRequest request, Snapshots snapshots) {
        WorkspaceRequest asked = request.workspace();
        if (asked.keptWorkspace() != null && asked.fromSnapshot() != null) {
            throw new Refused(Refused.Reason.VALIDATION, "workspace and fromSnapshot cannot both be given");
        }
        if (asked.fromSnapshot() != null) {
            Snapshot snapshot = snapshots.visible(asked.fromSnapshot(), request.userId(), false);
            WorkspaceRequest placed = asked.placed(snapshot.node(),
                    SandboxWorkspace.copyOf(snapshot.volume(), snapshot.diskMb()));
            return new Resolved(request.withWorkspace(placed, snapshot.image()), null, null);
        }
        if (asked.keptWorkspace() == null) {
            return new Resolved(request, null, null);
        }
        String id = asked.keptWorkspace();
        String claim = newId(KeptWorkspace.CLAIM_PREFIX);
        Optional<WorkspaceRecords.ClaimRefusal> refusal = records.claim(id, request.userId(), claim, clock.instant());
        if (refusal.isPresent()) {
            if (refusal.get() == WorkspaceRecords.ClaimRefusal.NOT_FOUND) {
                throw new Refused(Refused.Reason.NOT_FOUND, "No workspace " + id);
            }
            throw new Refused(Refused.Reason.CONFLICT, "Workspace " + id + " is mounted by a live runtime; delete "
                    + "that runtime (with keepWorkspace=true to keep it) first");
        }
        KeptWorkspace workspace = records.workspace(id).orElseThrow();
        WorkspaceRequest placed = asked.placed(workspace.node(), SandboxWorkspace.mount(workspace.volume()));
        return new Resolved(request.withWorkspace(placed, null), id, claim);
    }

    /** A provision's request as resolved, and the kept workspace it claimed (else nulls). */
    public record Resolved(ProvisioningRequest request, String workspaceId, String claim) {
    }

    /** The claimed workspace is mounted by {@code runtimeId} now; null: the provision failed, the claim is released. */
    public void claimed(Resolved resolved, String runtimeId) {
        if (resolved.workspaceId() != null) {
            records.attach(resolved.workspaceId(), resolved.claim(), runtimeId, clock.instant());
        }
    }
}
