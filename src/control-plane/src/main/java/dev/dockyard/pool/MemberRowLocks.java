package dev.dockyard.pool;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Keeps scans of the pool members' rows and transactions that claim several members apart.
 *
 * <p>Embedded Derby locks a scan's rows one after the other, holding a row while it waits for
 * the next; a batch of registrations ({@code runtime.provisioning.Admissions}) deletes several
 * member rows in one transaction. The two can wait for each other in a cycle, which Derby breaks
 * only after its 20 s deadlock timeout (measured: a burst of twenty claims stalled 20.8 s). A scan
 * is milliseconds and a batch tens of them, so they take turns here instead: scans share, a
 * batch of claims goes alone. (A claim of one member holds one row and cannot close a cycle; on
 * PostgreSQL readers never wait, and the turns cost next to nothing.)
 */
@ApplicationScoped
public class MemberRowLocks {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

    /** Runs a read of member rows (a statement: its locks end with it). */
    public <T> T scanning(Supplier<T> scan) {
        lock.readLock().lock();
        try {
            return scan.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Runs a whole transaction, commit included, that claims several members. */
    public <T> T claimingSeveral(Supplier<T> transaction) {
        lock.writeLock().lock();
        try {
            return transaction.get();
        } finally {
            lock.writeLock().unlock();
        }
    }
}
