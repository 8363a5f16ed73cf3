package dev.dockyard.workspace;

import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kept workspaces and snapshots in the database: every method is one short transaction of its own
 * ({@code REQUIRES_NEW}), so no transaction is open while the backend copies or removes volumes.
 */
@ApplicationScoped
public class WorkspaceRecords {

    /** Why a kept workspace cannot be claimed for a new runtime. */
    public enum ClaimRefusal { NOT_FOUND, IN_USE }

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void add(KeptWorkspace workspace) {
        em.persist(workspace);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<KeptWorkspace> workspace(String id) {
        return Optional.ofNullable(em.find(KeptWorkspace.class, id));
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<KeptWorkspace> workspaceOnVolume(String volume) {
        return em.createQuery("select w from KeptWorkspace w where w.volume = :v", KeptWorkspace.class)
                .setParameter("v", volume).getResultStream().findFirst();
    }

    /** A user's kept workspaces, or everyone's for {@code userId} null; newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<KeptWorkspace> workspaces(String userId) {
        // two queries: Derby refuses "? is null" on an untyped parameter
        if (userId == null) {
            return em.createQuery("select w from KeptWorkspace w order by w.createdAt desc", KeptWorkspace.class)
                    .getResultList();
        }
        return em.createQuery("select w from KeptWorkspace w where w.userId = :u order by w.createdAt desc",
                KeptWorkspace.class).setParameter("u", userId).getResultList();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void measured(String id, long bytes, int diskMb) {
        KeptWorkspace w = em.find(KeptWorkspace.class, id);
        if (w != null) {
            w.measured(bytes, diskMb);
        }
    }

    /**
     * Claims the workspace of {@code userId} for a runtime being provisioned, under a lock on its
     * row, unless a live runtime (or a fresh claim) holds it. Empty when claimed.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<ClaimRefusal> claim(String id, String userId, String claim, Instant now) {
        KeptWorkspace w = em.find(KeptWorkspace.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (w == null || !w.userId().equals(userId)) {
            return Optional.of(ClaimRefusal.NOT_FOUND);
        }
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
        SandboxRuntime runtime = em.find(SandboxRuntime.class, holder);
        return runtime != null && runtime.status().isLive();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean inUse(String id, Instant now) {
        KeptWorkspace w = em.find(KeptWorkspace.class, id);
        return w != null && inUse(w, now);
    }

    /** The workspace is mounted by {@code runtimeId} now (null: by nobody), if {@code expected} still holds it. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void attach(String id, String expected, String runtimeId, Instant now) {
        KeptWorkspace w = em.find(KeptWorkspace.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (w != null && (expected == null || expected.equals(w.attachedRuntime()))) {
            w.attach(runtimeId, now);
        }
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void forget(String id) {
        KeptWorkspace w = em.find(KeptWorkspace.class, id);
        if (w != null) {
            em.remove(w);
        }
    }

    /**
     * What the reconciler's sweep must spare on a node: the volumes of kept workspaces and
     * snapshots, and the runtimes a workspace is being kept from (their volume moves to the kept
     * name right after the record is made).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Set<String> protectedNames() {
        Set<String> names = new HashSet<>();
        em.createQuery("select w.volume, w.sourceRuntime from KeptWorkspace w", Object[].class).getResultList()
                .forEach(row -> {
                    names.add((String) row[0]);
                    if (row[1] != null) {
                        names.add((String) row[1]);
                    }
                });
        names.addAll(em.createQuery("select s.volume from Snapshot s", String.class).getResultList());
        return names;
    }

    // snapshots

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void add(Snapshot snapshot) {
        em.persist(snapshot);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<Snapshot> snapshot(String id) {
        return Optional.ofNullable(em.find(Snapshot.class, id));
    }

    /** A user's snapshots, or everyone's for {@code userId} null; newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Snapshot> snapshots(String userId) {
        if (userId == null) {
            return em.createQuery("select s from Snapshot s order by s.createdAt desc", Snapshot.class)
                    .getResultList();
        }
        return em.createQuery("select s from Snapshot s where s.userId = :u order by s.createdAt desc",
                Snapshot.class).setParameter("u", userId).getResultList();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void forgetSnapshot(String id) {
        Snapshot s = em.find(Snapshot.class, id);
        if (s != null) {
            em.remove(s);
        }
    }
}
