package dev.dockyard.pool;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What went wrong with each pool lately, as the API shows it ({@code lastError}), and how long a
 * pool waits before it boots again after a failure: a missing image or a failing build must not
 * make the keeper boot and fail in a loop. Kept in memory: each control plane keeps its own
 * members, and a restart starts with a clean slate.
 */
@ApplicationScoped
public class PoolHealth {

    /** After a failed boot a pool waits this long before booting again: a missing image must not spin. */
    static final Duration BACKOFF = Duration.ofSeconds(15);

    @Inject
    Clock clock;

    private final Map<String, String> lastError = new ConcurrentHashMap<>();
    private final Map<String, Instant> backoffUntil = new ConcurrentHashMap<>();

    /** The pool failed to boot a member (or to build its image): it says why and backs off. */
    void failed(String pool, String message) {
        lastError.put(pool, message);
        backoffUntil.put(pool, clock.instant().plus(BACKOFF));
    }

    /** Why the pool is short of members without having failed (a full node): said, no back-off. */
    void note(String pool, String message) {
        lastError.put(pool, message);
    }

    /** A member of the pool booted: whatever went wrong before is over. */
    void recovered(String pool) {
        lastError.remove(pool);
        backoffUntil.remove(pool);
    }

    /** Until when the pool boots nothing, or null when it is not backing off. */
    Instant waitsUntil(String pool) {
        return backoffUntil.get(pool);
    }

    String lastError(String pool) {
        return lastError.get(pool);
    }
}
