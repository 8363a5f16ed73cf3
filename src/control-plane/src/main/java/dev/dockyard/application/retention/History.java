package dev.dockyard.application.retention;

import dev.dockyard.audit.AuditEntries;
import dev.dockyard.runtime.RuntimeRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Instant;

/**
 * Forgets history older than a moment, one bounded batch per short transaction of its own: a
 * purge of a large backlog never holds locks (or a transaction log) for long, and what one batch
 * removed stays removed when a later one fails.
 */
@ApplicationScoped
public class History {

    /** Rows one transaction removes at most. */
    public static final int BATCH = 500;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    AuditEntries audit;

    /** Removes up to {@link #BATCH} runtimes that ended before {@code cutoff}, with their status changes. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int forgetRuntimesEndedBefore(Instant cutoff) {
        return runtimes.forgetEndedBefore(cutoff, BATCH);
    }

    /** Removes up to {@link #BATCH} status changes recorded before {@code cutoff}, of any runtime. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int forgetEventsBefore(Instant cutoff) {
        return runtimes.forgetChangesBefore(cutoff, BATCH);
    }

    /** Removes up to {@link #BATCH} audit entries recorded before {@code cutoff} (the port's own transaction). */
    public int forgetAuditBefore(Instant cutoff) {
        return audit.removeRecordedBefore(cutoff, BATCH);
    }
}
