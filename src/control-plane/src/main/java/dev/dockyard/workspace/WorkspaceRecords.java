package dev.dockyard.workspace;

import dev.dockyard.runtime.RuntimeRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kept workspaces and snapshots in the database, through their port ({@link WorkspaceStore}):
 * every method is one short transaction of its own ({@code REQUIRES_NEW}), so no transaction is
 * open while the backend copies or removes volumes.
 */
@ApplicationScoped
public class WorkspaceRecords {

    /** Why a kept workspace cannot be claimed for a new runtime. */
    public enum ClaimRefusal { NOT_FOUND, IN_USE }

    @Inject
    WorkspaceStore store;

    /** Whether the runtime holding a workspace is still live. */
    @Inject
    RuntimeRepository runtimes;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void add(KeptWorkspace workspace) {
        store.add(workspace);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<KeptWorkspace> workspace(String id) {
        return store.workspace(id);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<KeptWorkspace> workspaceOnVolume(String volume) {
        return store.workspaceOnVolume(volume);
    }

    /** A user's kept workspaces, or everyone's for {@code userId} null; newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<KeptWorkspace> workspaces(String userId) {
        return store.workspaces(userId);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void measured(String id, long bytes, int diskMb) {
        store.workspace(id).ifPresent(w -> w.measured(bytes, diskMb));
    }

    /**
     * Claims the workspace of {@code userId} for a runtime being provisioned, under a lock on its
     * row, unless a live runtime (or a fresh claim) holds it. Empty when claimed.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<ClaimRefusal> claim(String id, String userId, String claim, Instant now) {
        Optional<KeptWorkspace> found = store.lockWorkspace(id);
        if (found.isEmpty() || !found.get().userId().equals(userId)) {
            return Optional.of(ClaimRefusal.NOT_FOUND);
        }
        KeptWorkspace w = found.get();
        if (inUse(w, now)) {
            return Optional.of(ClaimRefusal.IN_USE);
        }
        w.attach(claim, now);
        return Optional.empty();
    }

    /** Whether a live runtime, or a claim not yet expired, holds the workspace. */
    boolean inUse(KeptWorkspace w, Instant now) {
        String holder = w.attachedRuntime();
        if (holder == null) {
            return false;
        }
        if (holder.startsWith(KeptWorkspace.CLAIM_PREFIX)) {
            return w.attachedAt() != null && w.attachedAt().plus(KeptWorkspace.CLAIM_EXPIRES).isAfter(now);
        }
        return runtimes.find(holder).filter(runtime -> runtime.status().isLive()).isPresent();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean inUse(String id, Instant now) {
        return store.workspace(id).filter(w -> inUse(w, now)).isPresent();
    }

    /** The workspace is mounted by {@code runtimeId} now (null: by nobody), if {@code expected} still holds it. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void attach(String id, String expected, String runtimeId, Instant now) {
        store.lockWorkspace(id).filter(w -> expected == null || expected.equals(w.attachedRuntime()))
                .ifPresent(w -> w.attach(runtimeId, now));
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void forget(String id) {
        store.workspace(id).ifPresent(store::remove);
    }

    /**
     * What the reconciler's sweep must spare on a node: the volumes of kept workspaces and
     * snapshots, and the runtimes a workspace is being kept from (their volume moves to the kept
     * name right after the record is made).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Set<String> protectedNames() {
        return store.volumesAndSources();
    }

    // snapshots

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void add(Snapshot snapshot) {
        store.add(snapshot);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<Snapshot> snapshot(String id) {
        return store.snapshot(id);
    }

    /** A user's snapshots, or everyone's for {@code userId} null; newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Snapshot> snapshots(String userId) {
        return store.snapshots(userId);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void forgetSnapshot(String id) {
        store.snapshot(id).ifPresent(store::remove);
    }
}
