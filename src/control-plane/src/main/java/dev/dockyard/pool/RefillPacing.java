package dev.dockyard.pool;

import dev.dockyard.config.DockyardConfig;
import dev.dockyard.placement.Placement;
import dev.dockyard.placement.WarmMembers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a pool's refill may boot, and how many of its members (within its {@code maxBooting}) the
 * node has room for.
 *
 * <p>Refills yield to claims. A claim is a few milliseconds of work, a boot seconds of CPU; on a
 * small machine four JVMs booting beside a burst of claims make every claim wait for the CPU. So
 * a pool boots nothing until {@code dockyard.pools.refill-delay-ms} after its last claim, unless
 * claims are going cold (a request it would have served found it empty within that delay: boot
 * now) or it has held off for ten times that already (a steady stream of claims must not starve
 * the pool). An empty queue alone is no reason: a burst as large as the pool empties it while
 * its claims are still being configured, and boots started then took a third of the machine's
 * CPU from them (bench of 2026-12-03: a burst of 100 claims against a pool of 100). And a node
 * whose memory is bounded gets no more members than it has room for: members hold their memory
 * from the moment they boot (see {@link WarmMembers}).
 */
@ApplicationScoped
public class RefillPacing {

    @Inject
    DockyardConfig config;

    @Inject
    WarmPools pools;

    @Inject
    Placement placement;

    @Inject
    PoolHealth health;

    /** Pool → when its refill began to wait for claims to pause. */
    private final Map<String, Instant> holdingSince = new ConcurrentHashMap<>();

    /** How much longer the pool's refill waits for claims to pause, or empty to boot now. */
    Optional<Duration> holdOff(String pool, Instant now) {
        Duration delay = config.poolRefillDelay();
        Instant lastClaim = pools.lastClaimAt(pool);
        Instant lastMiss = pools.lastMissAt(pool);
        if (delay.isZero() || lastClaim == null || !lastClaim.plus(delay).isAfter(now)
                || (lastMiss != null && lastMiss.plus(delay).isAfter(now))) {
            holdingSince.remove(pool);
            return Optional.empty();
        }
        Instant since = holdingSince.computeIfAbsent(pool, p -> now);
        if (!since.plus(delay.multipliedBy(10)).isAfter(now)) {
            holdingSince.remove(pool);
            return Optional.empty();
        }
        return Optional.of(Duration.between(now, lastClaim.plus(delay)));
    }

    /**
     * How many of {@code wanted} boots the pool's node has memory for, when its memory is bounded:
     * a full node gets no more members, and the pool says why.
     */
    int withinNodeMemory(PoolDefinition pool, int wanted) {
        OptionalLong free = placement.freeMemoryMb(pool.node());
        if (free.isEmpty()) {
            return wanted;
        }
        long fit = Math.max(0, free.getAsLong() / Math.max(1, pool.memoryMb()));
        if (fit >= wanted) {
            return wanted;
        }
        health.note(pool.name(), "node '" + pool.node() + "' has " + Math.max(0, free.getAsLong())
                + " MB of its max-memory-mb left: room for " + fit + " more warm member(s) of " + pool.memoryMb()
                + " MB");
        return (int) fit;
    }
}
