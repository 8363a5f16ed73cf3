package dev.dockyard.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where runtimes and their status changes are kept: the domain's port, implemented on JPA in
 * {@code persistence} (and in memory by the unit tests' fakes). Transactions belong to the callers
 * (the provisioning journal, the API), so every method joins whatever transaction is active.
 */
public interface RuntimeRepository {

    Optional<SandboxRuntime> find(String id);

    /** The row, locked for the rest of the transaction: status changes never interleave. */
    Optional<SandboxRuntime> lock(String id);

    /**
     * Stores a new runtime with its first status change; a second live runtime for the same
     * conversation fails here, not at commit.
     */
    void add(SandboxRuntime runtime, StatusChange first);

    /** Stores a transition; followers hear of it once the transaction commits. */
    void record(StatusChange change);

    /** Writes what the transaction changed so far, so a constraint violation surfaces now. */
    void flush();

    /** The live runtime of a user's conversation, if any. */
    Optional<SandboxRuntime> findLive(String userId, String conversationId);

    /** Runtimes of one user (or everyone's for null), newest first, optionally filtered; at most 1,000. */
    List<SandboxRuntime> list(String userId, String conversationId, RuntimeStatus status);

    /** The live runtime that is replacing (or migrating) {@code runtimeId}, if any. */
    Optional<SandboxRuntime> replacementOf(String runtimeId);

    /** Every runtime that is live (holds or may hold a sandbox). */
    List<SandboxRuntime> live();

    /**
     * Removes the user's ended runtimes (STOPPED, ERROR) with their status changes: a user deleted
     * leaves no runtime history under an id that may be given again. Audit entries stay.
     */
    int forgetEnded(String userId);

    /**
     * Removes up to {@code max} runtimes that ended (STOPPED, ERROR) before {@code cutoff}, with
     * their status changes: the retention of ended runtimes. Returns how many runtimes went.
     */
    int forgetEndedBefore(Instant cutoff, int max);

    /**
     * Removes up to {@code max} status changes recorded before {@code cutoff}, of any runtime, but
     * never a runtime's newest one.
     */
    int forgetChangesBefore(Instant cutoff, int max);

    /** A runtime's status changes, oldest first. */
    List<StatusChange> history(String runtimeId);

    /** How many runtimes are in each status on each node (null: recorded without a node), in one query. */
    List<Count> countByStatusAndNode();

    /** One row of {@link #countByStatusAndNode()}. */
    record Count(RuntimeStatus status, String node, long runtimes) {
    }
}
