package dev.dockyard.audit;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The audit trail of actions. Entries are written off the action's own path: queued in memory and
 * stored in batches a quarter of a second later (one short transaction per batch, on a managed
 * thread), so auditing neither slows an action down nor fails it; what is queued when the
 * application stops is stored then. Reads are newest first.
 */
@ApplicationScoped
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());
    private static final long BATCH_DELAY_MS = 250;

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Inject
    AuditTrail self;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final ConcurrentLinkedQueue<AuditEntry> queued =
            new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled =
            new AtomicBoolean();

    /** Records the entry soon, after the answer has gone. */
    public void record(AuditEntry entry) {
        queued.add(entry);
        if (drainScheduled.compareAndSet(false, true)) {
            scheduler.schedule(this::drain, BATCH_DELAY_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void drain() {
        drainScheduled.set(false);
        List<AuditEntry> batch = new ArrayList<>();
        for (AuditEntry e; (e = queued.poll()) != null; ) {
            batch.add(e);
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            self.store(batch);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not store " + batch.size() + " audit entries", e);
        }
    }

    @PreDestroy
    void flush() {
        drain();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void store(List<AuditEntry> entries) {
        entries.forEach(em::persist);
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
