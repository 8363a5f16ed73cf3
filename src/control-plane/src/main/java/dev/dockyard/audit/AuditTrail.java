package dev.dockyard.audit;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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
 * application stops is stored then. Reads are newest first. Where the entries are kept is the
 * {@link AuditEntries} port's business.
 */
@ApplicationScoped
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());
    private static final long BATCH_DELAY_MS = 250;

    @Inject
    AuditEntries entries;

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
            entries.store(batch);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not store " + batch.size() + " audit entries", e);
        }
    }

    @PreDestroy
    void flush() {
        drain();
    }

    /** Entries of one runtime, newest first. */
    public List<AuditEntry> ofRuntime(String runtimeId, int limit) {
        return entries.ofRuntime(runtimeId, limit);
    }

    /** Entries of one user (or everyone's for null) since a moment (or ever for null), newest first. */
    public List<AuditEntry> search(String userId, Instant since, int limit) {
        return entries.search(userId, since, limit);
    }
}
