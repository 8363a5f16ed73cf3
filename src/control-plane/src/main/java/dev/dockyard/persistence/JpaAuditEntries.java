package dev.dockyard.persistence;

import dev.dockyard.audit.AuditEntries;
import dev.dockyard.audit.AuditEntry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;

/** The audit entries on JPA ({@link AuditEntries} is the port the audit trail sees). */
@ApplicationScoped
public class JpaAuditEntries implements AuditEntries {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void store(List<AuditEntry> entries) {
        entries.forEach(em::persist);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<AuditEntry> ofRuntime(String runtimeId, int limit) {
        return em.createQuery("select a from AuditEntry a where a.runtimeId = :id order by a.at desc", AuditEntry.class)
                .setParameter("id", runtimeId).setMaxResults(limit).getResultList();
    }

    @Override
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

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int removeRecordedBefore(Instant cutoff, int max) {
        List<String> ids = em.createQuery("select a.id from AuditEntry a where a.at < :cutoff", String.class)
                .setParameter("cutoff", cutoff).setMaxResults(max).getResultList();
        return ids.isEmpty() ? 0
                : em.createQuery("delete from AuditEntry a where a.id in :ids").setParameter("ids", ids)
                        .executeUpdate();
    }
}
