package dev.dockyard.application.retention;

import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Applies the {@link Retention} every ten minutes, on every control plane (removing rows is the
 * same whoever does it first). No transaction around a pass: each batch has its own.
 */
@Singleton
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RetentionTimer {

    private static final Logger LOG = Logger.getLogger(RetentionTimer.class.getName());

    @Inject
    Retention retention;

    @Schedule(minute = "*/10", hour = "*", persistent = false, info = "dockyard-retention")
    void periodically() {
        try {
            retention.apply();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not apply the retention of old runtimes, events and audit entries: "
                    + e.getMessage(), e);
        }
    }
}
