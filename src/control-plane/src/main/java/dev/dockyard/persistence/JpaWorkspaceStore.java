package dev.dockyard.persistence;

import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kept workspaces and snapshots on JPA ({@link WorkspaceStore} is the port the workspaces see).
 * Every method joins the caller's transaction.
 */
@ApplicationScoped
public class JpaWorkspaceStore implements WorkspaceStore {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    public void add(KeptWorkspace workspace) {
        em.persist(workspace);
    }

    @Override
    public Optional<KeptWorkspace> workspace(String id) {
        return Optional.ofNullable(em.find(KeptWorkspace.class, id));
    }

    @Override
    public Optional<KeptWorkspace> lockWorkspace(String id) {
        return Optional.ofNullable(em.find(KeptWorkspace.class, id, LockModeType.PESSIMISTIC_WRITE));
    }

    @Override
    public Optional<KeptWorkspace> workspaceOnVolume(String volume) {
        return em.createQuery("select w from KeptWorkspace w where w.volume = :v", KeptWorkspace.class)
                .setParameter("v", volume).getResultStream().findFirst();
    }

    @Override
    public List<KeptWorkspace> workspaces(String userId) {
        // two queries: Derby refuses "? is null" on an untyped parameter
        if (userId == null) {
            return em.createQuery("select w from KeptWorkspace w order by w.createdAt desc", KeptWorkspace.class)
                    .getResultList();
        }
        return em.createQuery("select w from KeptWorkspace w where w.userId = :u order by w.createdAt desc",
                KeptWorkspace.class).setParameter("u", userId).getResultList();
    }

    @Override
    public void remove(KeptWorkspace workspace) {
        em.remove(workspace);
    }

    @Override
    public Set<String> volumesAndSources() {
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

    @Override
    public void add(Snapshot snapshot) {
        em.persist(snapshot);
    }

    @Override
    public Optional<Snapshot> snapshot(String id) {
        return Optional.ofNullable(em.find(Snapshot.class, id));
    }

    @Override
    public List<Snapshot> snapshots(String userId) {
        if (userId == null) {
            return em.createQuery("select s from Snapshot s order by s.createdAt desc", Snapshot.class)
                    .getResultList();
        }
        return em.createQuery("select s from Snapshot s where s.userId = :u order by s.createdAt desc",
                Snapshot.class).setParameter("u", userId).getResultList();
    }

    @Override
    public void remove(Snapshot snapshot) {
        em.remove(snapshot);
    }
}
