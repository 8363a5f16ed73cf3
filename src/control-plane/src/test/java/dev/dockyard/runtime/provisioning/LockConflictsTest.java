package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LockConflictsTest {

    private static RuntimeException failure(String sqlState) {
        SQLException cause = new SQLException("from the database", sqlState);
        return new TransactionalException("rolled back", new PersistenceException(cause));
    }

    @Test
    void shouldKnowDeadlocksAndLockTimeoutsFromOtherFailures() {
        assertTrue(LockConflicts.isLockConflict(failure("40001")), "Derby's deadlock victim");
        assertTrue(LockConflicts.isLockConflict(failure("40XL1")), "Derby's lock timeout");
        assertTrue(LockConflicts.isLockConflict(failure("40P01")), "PostgreSQL's deadlock");
        assertFalse(LockConflicts.isLockConflict(failure("23505")), "a duplicate key is no conflict of locks");
        assertFalse(LockConflicts.isLockConflict(failure("40003")), "after an unknown completion it may have committed");
        assertFalse(LockConflicts.isLockConflict(new IllegalStateException("no SQL in it")));
        SQLException chained = new SQLException("batch failed", "XJ208");
        chained.setNextException(new SQLException("deadlock", "40001"));
        assertTrue(LockConflicts.isLockConflict(new PersistenceException(chained)), "a chained SQL error counts");
    }

    @Test
    void shouldRunAgainUntilTheWorkGetsThroughAndNotForOtherFailures() {
        AtomicInteger runs = new AtomicInteger();
        String answer = LockConflicts.retried(() -> {
            if (runs.incrementAndGet() < 3) {
                throw failure("40001");
            }
            return "recorded";
        });
        assertEquals("recorded", answer);
        assertEquals(3, runs.get());

        AtomicInteger duplicates = new AtomicInteger();
        RuntimeException duplicate = failure("23505");
        assertSame(duplicate, assertThrows(RuntimeException.class, () -> LockConflicts.retried(() -> {
            duplicates.incrementAndGet();
            throw duplicate;
        })));
        assertEquals(1, duplicates.get(), "a failure that would fail again is not repeated");
    }

    @Test
    void shouldGiveUpAfterItsAttempts() {
        AtomicInteger runs = new AtomicInteger();
        assertThrows(TransactionalException.class, () -> LockConflicts.retried(() -> {
            runs.incrementAndGet();
            throw failure("40001");
        }));
        assertEquals(LockConflicts.ATTEMPTS, runs.get());
    }
}
