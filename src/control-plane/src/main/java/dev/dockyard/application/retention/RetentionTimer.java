package dev.dockyard.application.retention;

import dev.dockyard.application.idempotency.IdempotencyKeys;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Applies the {@link Retention} every ten minutes, on every control plane (removing rows is the
 * same whoever does it first), and forgets idempotency keys past their
 * {@link IdempotencyKeys#RETENTION}: one timer for all that ages out. No transaction around a
 * pass: each batch has its own.
 */
@Singleton
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RetentionTimer {

    private static final Logger LOG = Logger.getLogger(RetentionTimer.class.getName());

    @Inject
    Retention retention;

    @Inject
    IdempotencyKeys keys;

    @Schedule(minute = "*/10", hour = "*", persistent = false, info = "dockyard-retention")
    void periodically() {
        try {
            retention.apply();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not apply the retention of old runtimes, events and audit entries: "
                    + e.getMessage(), e);
        }
        try {
            keys.purge();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not forget old idempotency keys: " + e.getMessage(), e);
        }
    }
}
