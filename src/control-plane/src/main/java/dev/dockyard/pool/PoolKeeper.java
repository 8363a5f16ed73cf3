package dev.dockyard.pool;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps every pool at its size: one pass ({@link #tend()}) compares the members recorded for this
 * control plane with the sandboxes its nodes list and with the pools' definitions, drains what no
 * longer fits (pool deleted or redefined, image rebuilt, sandbox gone or stopped, boot interrupted
 * by a restart), queues the READY members for claims, and boots what is missing, no more than a
 * pool's {@code maxBooting} at once. A node that cannot be listed is left alone for the pass: an
 * incomplete view must not look like dead members. Passes run outside any transaction: the
 * {@link PoolTimer}'s, which ask the engines and renew the keeper's lease, and the quick ones soon
 * after a boot ended, a claim or a definition changed ({@link #tendSoon()}), which read the ledger
 * only: a pool of a hundred boots a hundred members, and a pass after each that listed every
 * container of the node made its fill cost the engine quadratic work.
 *
 * <p>The pass decides; others do: {@link MemberDrain} drains a member, {@link MemberBoots} boots
 * one (its row written before its container exists and after it answers), {@link PoolImages}
 * says which image members should run, {@link RefillPacing} holds refills back while claims
 * arrive (then a pass is scheduled for when they may boot) and within the node's memory, and
 * {@link PoolHealth} keeps each pool's last error and back-off. Members boot at the lowest CPU
 * weight (see {@link SandboxSpec#background()}).
 */
@ApplicationScoped
public class PoolKeeper {

    private static final Logger LOG = Logger.getLogger(PoolKeeper.class.getName());

    @Inject
    PoolLedger ledger;

    @Inject
    WarmPools pools;

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    MemberBoots boots;

    @Inject
    MemberDrain drain;

    @Inject
    PoolImages images;

    @Inject
    RefillPacing pacing;

    @Inject
    PoolHealth health;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final AtomicBoolean passScheduled = new AtomicBoolean();
    private final ReentrantLock tending = new ReentrantLock();
    private final AtomicBoolean again = new AtomicBoolean();
    /** Whether a pass asked for while one ran was the timer's, which asks the engines. */
    private final AtomicBoolean againWithEngines = new AtomicBoolean();
    /** Whether this control plane keeps the pools now (the pool keeper's lease, from PoolTimer), renewing it; always until told. */
    private volatile BooleanSupplier keeping = () -> true;
    /** The same without renewing it (no write): for the quick passes between the timer's. */
    private volatile BooleanSupplier stillKeeping = () -> true;

    /** What one pass did. */
    public record Report(int drained, int boots, boolean skippedSomewhere) {
    }

    /** A finished boot's slot starts the next one at once, not at the next timed pass. */
    @PostConstruct
    void startNextBootsWhenBootsEnd() {
        boots.whenBootEnds(this::tendSoon);
    }

    /**
     * Tends the pools only while {@code gate} says so: among several control planes, where the
     * lease is. The timer's passes ask {@code gate}, which renews the lease; the quick passes
     * between them ask {@code held}, whether it is still fresh.
     */
    public void keepOnlyWhile(BooleanSupplier gate, BooleanSupplier held) {
        keeping = gate;
        stillKeeping = held;
    }

    /** The timer's kind of pass soon, on a managed thread: at the start, before the timer's first. */
    public void checkSoon() {
        try {
            executor.execute(this::tend);
        } catch (RejectedExecutionException e) {
            // the timer's first pass will do it
        }
    }

    /**
     * A quick pass soon, on a managed thread (after a boot ended, a claim took a member, a definition
     * changed): the ledger only, as the members' sandboxes were at the timer's last pass.
     */
    public void tendSoon() {
        try {
            executor.execute(this::tendQuickly);
        } catch (RejectedExecutionException e) {
            // the timer's next pass will do it
        }
    }

    /**
     * After a claim took a member of {@code pool}: a pass now when the pool may refill now, else
     * one when its refill may start. A pass used to read the ledger and list every container of
     * the members' nodes (now only the timer's do); claims come in runs, while which the refill
     * waits anyway ({@link RefillPacing}), and a pass after each claim cost more CPU than the claim itself (the bench's
     * claims phase of 2026-12-02 08:17: 79 ms of control-plane CPU and 35 ms of the engine's per
     * claim, half of the former compiling code).
     */
    public void claimedFrom(String pool) {
        Optional<Duration> holdOff = pacing.holdOff(pool, clock.instant());
        if (holdOff.isPresent()) {
            tendIn(holdOff.get());
        } else {
            tendSoon();
        }
    }

    /**
     * The timer's pass now: the engines are asked whether the members' sandboxes still run. Asked
     * for while one runs, it runs once more right after (bounded), so no request for a top-up is
     * lost and none waits for a lock.
     */
    public Report tend() {
        return tend(true);
    }

    /** A quick pass now: the ledger only (see {@link #tendSoon()}). */
    Report tendQuickly() {
        return tend(false);
    }

    private Report tend(boolean withEngines) {
        if (!(withEngines ? keeping : stillKeeping).getAsBoolean()) {
            return null;
        }
        if (!tending.tryLock()) {
            if (withEngines) {
                againWithEngines.set(true);
            }
            again.set(true);
            return null;
        }
        try {
            Report report = tendOnce(withEngines);
            for (int i = 0; i < 3 && again.getAndSet(false); i++) {
                report = tendOnce(againWithEngines.getAndSet(false));
            }
            return report;
        } finally {
            tending.unlock();
        }
    }

    private Report tendOnce(boolean withEngines) {
        List<PoolDefinition> definitions;
        List<PoolMember> members;
        try {
            definitions = pools.refresh();
            members = ledger.members(config.instance());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Pools not tended, the database cannot be read: " + e.getMessage());
            return new Report(0, 0, true);
        }
        Map<String, PoolDefinition> byName = new HashMap<>();
        definitions.forEach(d -> byName.put(d.name(), d));
        Map<String, Optional<Map<String, ManagedSandbox>>> listings = new HashMap<>();
        Map<String, Optional<String>> imageIds = new HashMap<>();
        Instant now = clock.instant();
        int drained = 0;
        boolean skipped = false;
        Map<String, List<WarmSandbox>> current = new HashMap<>();
        Map<String, Integer> alive = new HashMap<>();
        for (PoolMember member : members) {
            PoolDefinition pool = byName.get(member.pool());
            String why = null;
            if (pool == null) {
                why = "its pool was deleted";
            } else if (!pool.shape().equals(member.shape())) {
                why = "its pool was redefined";
            } else if (member.status() == PoolMember.Status.BOOTING) {
                if (!boots.isBooting(member.id()) && member.createdAt().plus(config.reconcilerGrace()).isBefore(now)) {
                    why = "its boot was interrupted (the control plane restarted)";
                }
            } else if (withEngines) {
                Optional<Map<String, ManagedSandbox>> listing = listings.computeIfAbsent(member.node(), this::list);
                if (listing.isEmpty()) {
                    skipped = true;
                    alive.merge(member.pool(), 1, Integer::sum);
                    continue;
                }
                ManagedSandbox sandbox = listing.get().get(member.id());
                Optional<String> imageId = imageIds.computeIfAbsent(pool.name(), p -> images.currentId(pool));
                if (sandbox == null) {
                    why = "its sandbox is gone";
                } else if (!sandbox.running()) {
                    why = "its sandbox is not running (" + sandbox.phase() + ")";
                } else if (imageId.isPresent() && member.imageId() != null && !imageId.get().equals(member.imageId())) {
                    why = "its image was rebuilt";
                }
            }
            if (why != null) {
                if (drain.drain(member, why)) {
                    drained++;
                }
                continue;
            }
            alive.merge(member.pool(), 1, Integer::sum);
            if (member.status() == PoolMember.Status.READY) {
                current.computeIfAbsent(member.pool(), p -> new ArrayList<>()).add(WarmSandbox.of(member));
            }
        }
        // a pool made smaller gives its surplus back, the members that became ready last first: claims
        // take the oldest first, so the two rarely reach for the same member (members still booting
        // count, and go on a later pass if they are still too many then)
        for (PoolDefinition pool : definitions) {
            List<WarmSandbox> ready = current.getOrDefault(pool.name(), new ArrayList<>());
            int surplus = alive.getOrDefault(pool.name(), 0) - pool.size();
            ready.sort(Comparator.comparing(WarmSandbox::readyAt,
                    Comparator.nullsFirst(Comparator.<Instant>naturalOrder())).reversed());
            for (Iterator<WarmSandbox> it = ready.iterator(); surplus > 0 && it.hasNext(); ) {
                WarmSandbox extra = it.next();
                PoolMember member = memberOf(members, extra.id());
                // one fewer either way: drained now, or claimed meanwhile (a failed drop is tried next pass)
                surplus--;
                alive.merge(pool.name(), -1, Integer::sum);
                it.remove();
                if (member != null && drain.drain(member, "its pool was made smaller (size " + pool.size() + ")")) {
                    drained++;
                }
            }
        }
        Set<String> rows = new HashSet<>();
        members.forEach(m -> rows.add(m.id()));
        pools.forgetHandedOutExcept(rows);
        // a member read while it booted may have become READY and been queued by its boot since:
        // this pass has no reason to take it out of the queue
        Set<String> readBooting = new HashSet<>();
        members.stream().filter(m -> m.status() == PoolMember.Status.BOOTING).forEach(m -> readBooting.add(m.id()));
        int booted = 0;
        for (PoolDefinition pool : definitions) {
            if (withEngines) {
                pools.retain(pool.name(), current.getOrDefault(pool.name(), List.of()), readBooting);
            } else {
                pools.keepOnly(pool.name(), current.getOrDefault(pool.name(), List.of()), readBooting);
            }
            int missing = pool.size() - alive.getOrDefault(pool.name(), 0);
            long bootingNow = boots.bootingIn(pool.name());
            int start = (int) Math.min(missing, pool.maxBooting() - bootingNow);
            Instant wait = health.waitsUntil(pool.name());
            if (start <= 0 || (wait != null && wait.isAfter(now))) {
                continue;
            }
            Optional<Duration> holdOff = pacing.holdOff(pool.name(), now);
            if (holdOff.isPresent()) {
                tendIn(holdOff.get());
                continue;
            }
            start = pacing.withinNodeMemory(pool, start);
            for (int i = 0; i < start; i++) {
                if (boots.boot(pool)) {
                    booted++;
                }
            }
        }
        return new Report(drained, booted, skipped);
    }

    /** One pass after {@code delay} (at most one such pass waits at a time; the timer's come anyway). */
    private void tendIn(Duration delay) {
        if (!passScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.schedule(() -> {
                passScheduled.set(false);
                tendQuickly();
            }, Math.max(1, delay.toMillis()) + 10, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            passScheduled.set(false);
        }
    }

    /** The node's managed sandboxes by runtime id, or empty when the node cannot be listed. */
    private Optional<Map<String, ManagedSandbox>> list(String node) {
        try {
            Map<String, ManagedSandbox> byId = new HashMap<>();
            for (ManagedSandbox s : nodes.on(node).listManaged(config.instance())) {
                if (s.runtimeId() != null) {
                    byId.put(s.runtimeId(), s);
                }
            }
            return Optional.of(byId);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Pools on node '" + node + "' not checked, the view is incomplete: "
                    + e.getMessage());
            return Optional.empty();
        }
    }

    private static PoolMember memberOf(List<PoolMember> members, String id) {
        return members.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
    }

    /** Members of this control plane (every status): the reconciler leaves their sandboxes alone. */
    public Set<String> memberIds() {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        ledger.members(config.instance()).forEach(m -> ids.add(m.id()));
        ids.addAll(boots.memberIds());
        return ids;
    }

    int booting(String pool) {
        return (int) boots.bootingIn(pool);
    }

    String lastError(String pool) {
        return health.lastError(pool);
    }
}
