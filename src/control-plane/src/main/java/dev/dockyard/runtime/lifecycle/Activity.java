package dev.dockyard.runtime.lifecycle;

import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each runtime was last touched (an action, a file transfer, a request through its service
 * URL), and which runtimes the idle lifecycle has put to sleep, both in memory: an action costs a
 * map update here, never a database write. The sweep persists the last activity in coarse steps
 * ({@link #PERSIST_STEP}), so a restarted control plane starts from a recent value rather than
 * from "just now" or from the runtime's creation.
 */
@ApplicationScoped
public class Activity {

    /** How far the persisted last activity may lag behind the one in memory. */
    static final Duration PERSIST_STEP = Duration.ofSeconds(10);

    private final Map<String, Instant> lastActive = new ConcurrentHashMap<>();
    private final Set<String> asleep = ConcurrentHashMap.newKeySet();

    @Inject
    Clock clock;

    /** The runtime is being used now. */
    public void touch(String runtimeId) {
        lastActive.put(runtimeId, clock.instant());
    }

    /**
     * The last time anyone used the runtime: the latest of what this control plane saw, what was
     * persisted, and its last status change (becoming READY or being resumed counts as use).
     */
    public Instant lastActive(SandboxRuntime runtime) {
        Instant at = runtime.updatedAt();
        Instant persisted = runtime.lastActiveAt();
        if (persisted != null && persisted.isAfter(at)) {
            at = persisted;
        }
        Instant seen = lastActive.get(runtime.id());
        return seen != null && seen.isAfter(at) ? seen : at;
    }

    /** The last activity seen here if the persisted one lags behind it by a step or more, else null. */
    Instant toPersist(SandboxRuntime runtime) {
        Instant seen = lastActive.get(runtime.id());
        if (seen == null) {
            return null;
        }
        Instant persisted = runtime.lastActiveAt();
        return persisted == null || !seen.isBefore(persisted.plus(PERSIST_STEP)) ? seen : null;
    }

    /** Whether this control plane put the runtime to sleep and has not woken it since. */
    public boolean isAsleep(String runtimeId) {
        return asleep.contains(runtimeId);
    }

    void asleep(String runtimeId) {
        asleep.add(runtimeId);
    }

    void awake(String runtimeId) {
        asleep.remove(runtimeId);
    }

    /** Forgets every runtime not in {@code live} (they ended). */
    void retainOnly(Set<String> live) {
        lastActive.keySet().retainAll(live);
        asleep.retainAll(live);
    }
}
