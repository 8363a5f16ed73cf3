package dev.dockyard.runtime.provisioning;

import java.sql.SQLException;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs a short transaction again when the database chose it as a deadlock victim or timed out
 * its wait for a lock.
 *
 * <p>Such a transaction was rolled back whole, so running it again is safe, and its failure says
 * nothing about the runtime: under load (Derby's index locks on the conversation column, measured
 * in a CI run) the transaction that records a runtime READY after its sandbox booted was picked as
 * a victim and the runtime went ERROR with a working sandbox. These states name them: 40001
 * (serialization failure, Derby's deadlock), 40P01 (PostgreSQL's deadlock), 40XL1/40XL2 (Derby's
 * lock timeout). Nothing else is retried: not a unique-constraint violation (23505), and not the
 * rest of class 40, e.g. PostgreSQL's 40003 (statement completion unknown), after which the
 * transaction may have committed.
 */
final class LockConflicts {

    /** Attempts in all, the first included. */
    static final int ATTEMPTS = 4;

    private static final long BACKOFF_MS = 40;

    private LockConflicts() {
    }

    /** The work's answer, run up to {@link #ATTEMPTS} times while it fails on a lock conflict. */
    static <T> T retried(Supplier<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.get();
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS || !isLockConflict(e)) {
                    throw e;
                }
                pause(attempt);
            }
        }
    }

    private static final Set<String> CONFLICTS = Set.of("40001", "40P01", "40XL1", "40XL2");

    /** Whether the failure's cause chain holds an SQL error of a deadlock or a lock timeout. */
    static boolean isLockConflict(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException()) {
                    String state = s.getSQLState();
                    if (state != null && CONFLICTS.contains(state)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static void pause(int attempt) {
        try {
            // the two transactions met once; a growing pause keeps them from meeting again in step
            Thread.sleep(BACKOFF_MS * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting to record again after a lock conflict", e);
        }
    }
}
