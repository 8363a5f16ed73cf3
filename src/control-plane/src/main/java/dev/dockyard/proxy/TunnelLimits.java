package dev.dockyard.proxy;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Open tunnels counted per runtime and per user, each against its own limit. The global cap alone
 * let one runtime's owner (or one leaked key) hold every tunnel the control plane has, locking out
 * every other user's WebSockets; these limits keep each share bounded. A count that drops to zero
 * is removed, so the maps hold only runtimes and users with tunnels open.
 */
final class TunnelLimits {

    private final int perRuntime;
    private final int perUser;
    private final Map<String, Integer> byRuntime = new ConcurrentHashMap<>();
    private final Map<String, Integer> byUser = new ConcurrentHashMap<>();

    /** Limits below 1 are taken as 1: a limit of none would refuse every tunnel. */
    TunnelLimits(int perRuntime, int perUser) {
        this.perRuntime = Math.max(1, perRuntime);
        this.perUser = Math.max(1, perUser);
    }

    /**
     * Counts one more tunnel for the runtime and its owner, or counts nothing and says which limit
     * refused it. Every acquired tunnel must be {@link #release released} once.
     */
    Optional<String> tryAcquire(String runtimeId, String userId) {
        if (!increment(byRuntime, runtimeId, perRuntime)) {
            return Optional.of("Too many open WebSocket connections to this runtime (at most " + perRuntime + ")");
        }
        if (!increment(byUser, userId, perUser)) {
            decrement(byRuntime, runtimeId);
            return Optional.of("Too many open WebSocket connections for this user (at most " + perUser + ")");
        }
        return Optional.empty();
    }

    void release(String runtimeId, String userId) {
        decrement(byRuntime, runtimeId);
        decrement(byUser, userId);
    }

    int openForRuntime(String runtimeId) {
        return byRuntime.getOrDefault(key(runtimeId), 0);
    }

    int openForUser(String userId) {
        return byUser.getOrDefault(key(userId), 0);
    }

    /** Atomically one more under {@code key} unless that would pass {@code limit}. */
    private static boolean increment(Map<String, Integer> counts, String key, int limit) {
        boolean[] counted = {false};
        counts.compute(key(key), (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limit) {
                return n;
            }
            counted[0] = true;
            return now + 1;
        });
        return counted[0];
    }

    private static void decrement(Map<String, Integer> counts, String key) {
        counts.computeIfPresent(key(key), (k, n) -> n <= 1 ? null : n - 1);
    }

    /** A runtime without an owner (none should exist) is counted under one shared name. */
    private static String key(String key) {
        return key == null ? "" : key;
    }
}
