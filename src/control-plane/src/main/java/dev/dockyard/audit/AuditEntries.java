package dev.dockyard.audit;

import java.time.Instant;
import java.util.List;

/**
 * Where audit entries are kept: the audit trail's port, implemented on JPA in {@code persistence}.
 * Each call is a transaction of its own: storing a batch never joins (or rolls back with) the
 * work that was audited.
 */
public interface AuditEntries {

    /** Stores a batch of entries at once. */
    void store(List<AuditEntry> entries);

    /** Entries of one runtime, newest first, at most {@code limit}. */
    List<AuditEntry> ofRuntime(String runtimeId, int limit);

    /** Entries of one user (or everyone's for null) since a moment (or ever for null), newest first. */
    List<AuditEntry> search(String userId, Instant since, int limit);

    /** Removes up to {@code max} entries recorded before {@code cutoff} (the audit's retention); how many went. */
    int removeRecordedBefore(Instant cutoff, int max);
}
