package dev.dockyard.audit;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The audit trail of actions. Entries are written off the action's own path (a managed thread,
 * a short transaction each), so auditing never slows an action down or fails it; reads are
 * newest first.
 */
@ApplicationScoped
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Inject
    AuditTrail self;

    @Resource
    ManagedExecutorService executor;

    /** Records the entry soon, after the answer has gone. */
    public void record(AuditEntry entry) {
        executor.execute(() -> {
            try {
                self.store(entry);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not store the audit entry of an action on runtime " + entry.runtimeId(), e);
            }
        });
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void store(AuditEntry entry) {
        em.persist(entry);
    }

    /** Entries of one runtime, newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<AuditEntry> ofRuntime(String runtimeId, int limit) {
        return em.createQuery("select a from AuditEntry a where a.runtimeId = :id order by a.at desc", AuditEntry.class)
                .setParameter("id", runtimeId).setMaxResults(limit).getResultList();
    }

    /** Entries of one user (or everyone's for null) since a moment (or ever for null), newest first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<AuditEntry> search(String userId, Instant since, int limit) {
        String jpql = "select a from AuditEntry a where 1 = 1" + (userId != null ? " and a.userId = :user" : "")
                + (since != null ? " and a.at >= :since" : "") + " order by a.at desc";
        TypedQuery<AuditEntry> query = em.createQuery(jpql, AuditEntry.class);
        if (userId != null) {
            query.setParameter("user", userId);
        }
        if (since != null) {
            query.setParameter("since", since);
        }
        return query.setMaxResults(limit).getResultList();
    }
}
