package dev.dockyard.application.idempotency;

import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Forgets idempotency keys older than {@link IdempotencyKeys#RETENTION}, every ten minutes. */
@Singleton
public class IdempotencyPurge {

    private static final Logger LOG = Logger.getLogger(IdempotencyPurge.class.getName());

    @Inject
    IdempotencyKeys keys;

    @Schedule(minute = "*/10", hour = "*", persistent = false, info = "dockyard-idempotency-purge")
    void purge() {
        try {
            keys.purge();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not purge old idempotency keys", e);
        }
    }
}
