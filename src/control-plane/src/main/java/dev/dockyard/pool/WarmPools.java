package dev.dockyard.pool;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.observability.DockyardMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The pools as provisioning and the API see them: which pool serves a request, the next warm
 * sandbox to try, the declarations, and each pool's counts.
 *
 * <p>Claims take candidates from an in-memory queue per pool, so twenty concurrent claimers try
 * twenty different sandboxes instead of racing for one; the database decides (the claim deletes
 * the member's row only if it is still READY), so a stale queue costs a retry, never a double
 * claim. The queue is the {@link PoolKeeper}'s to fill; hits and misses count since this control
 * plane started.
 */
@ApplicationScoped
public class WarmPools {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    @Inject
    PoolLedger ledger;

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    PoolKeeper keeper;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    private final Map<String, ConcurrentLinkedDeque<WarmSandbox>> ready = new ConcurrentHashMap<>();
    /**
     * Members taken out of a queue for a claim: never queued again by a keeper pass that read their
     * rows before the claim committed; forgotten once their rows are gone, put back if the claim
     * was refused before it touched the database.
     */
    private final Set<String> handedOut = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> hits = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> misses = new ConcurrentHashMap<>();
    /** Pool → its last claim attempt: the keeper's refills wait for claims to pause. */
    private final Map<String, Instant> lastClaim = new ConcurrentHashMap<>();
    /** Pool → the last claim that found its queue empty (it went cold): its refill waits no longer. */
    private final Map<String, Instant> lastMiss = new ConcurrentHashMap<>();
    /** Shape → pool name, for matching without a database read; rebuilt whenever definitions are read. */
    private volatile Map<String, String> byShape = Map.of();
    private volatile boolean loaded;

    /** A pool's state for the API. */
    public record PoolState(PoolDefinition definition, int ready, int booting, long claimed, long hits, long misses,
                            String lastError) {
    }

    /**
     * The pool that serves a runtime of these settings, if any: the same image, CPUs, memory,
     * plugins and node, for Dockyard's executor the same executor server (the request's, else its
     * node's: {@code executorServer}), and for another image's program the same command, working
     * directory and user (its environment comes with the init). Requests with extra dependencies
     * never match.
     */
    public Optional<String> match(String image, double cpus, int memoryMb, List<String> plugins, String node,
                                  PoolProgram program, ExecutorServer executorServer) {
        if (!loaded) {
            refresh();
        }
        return Optional.ofNullable(byShape.get(PoolDefinition.shape(image, cpus, memoryMb, plugins, node, program,
                executorServer)));
    }

    /** The next warm sandbox of {@code pool} to try to claim, taken out of the queue; empty counts a miss. */
    public Optional<WarmSandbox> next(String pool) {
        lastClaim.put(pool, clock.instant());
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.get(pool);
        WarmSandbox next = queue == null ? null : queue.pollFirst();
        if (next == null) {
            lastMiss.put(pool, clock.instant());
            missed(pool);
        } else {
            handedOut.add(next.id());
        }
        return Optional.ofNullable(next);
    }

    /** When a claim last took (or tried to take) a member of {@code pool}; null: never. */
    Instant lastClaimAt(String pool) {
        return lastClaim.get(pool);
    }

    /** When a claim last found {@code pool}'s queue empty and went cold; null: never. */
    Instant lastMissAt(String pool) {
        return lastMiss.get(pool);
    }

    /** A request the pool would serve went cold (empty pool, or settings it cannot take at claim). */
    public void missed(String pool) {
        counter(misses, pool).incrementAndGet();
        metrics.poolClaim(pool, false);
    }

    public void claimed(WarmSandbox sandbox) {
        counter(hits, sandbox.pool()).incrementAndGet();
        metrics.poolClaim(sandbox.pool(), true);
    }

    /** A candidate whose request was refused before its claim (quota, busy conversation): first in line again. */
    public void putBack(WarmSandbox sandbox) {
        handedOut.remove(sandbox.id());
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.computeIfAbsent(sandbox.pool(),
                p -> new ConcurrentLinkedDeque<>());
        if (queue.stream().noneMatch(s -> s.id().equals(sandbox.id()))) {
            queue.addFirst(sandbox);
        }
    }

    /** Adds a READY member at the end of its pool's queue, unless it is there or handed out already. */
    void offer(WarmSandbox sandbox) {
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.computeIfAbsent(sandbox.pool(),
                p -> new ConcurrentLinkedDeque<>());
        synchronized (queue) {
            if (!handedOut.contains(sandbox.id()) && queue.stream().noneMatch(s -> s.id().equals(sandbox.id()))) {
                queue.addLast(sandbox);
            }
        }
    }

    /**
     * Makes the pool's queue hold exactly {@code current} (the members found READY and current by
     * the keeper), keeping the order of those already queued, and leaving queued the members
     * {@code booting} names (read while they booted: their boot may have queued them since).
     */
    void retain(String pool, Collection<WarmSandbox> current, Set<String> booting) {
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.computeIfAbsent(pool, p -> new ConcurrentLinkedDeque<>());
        synchronized (queue) {
            dropAllBut(queue, current, booting);
            Set<String> queued = new HashSet<>();
            queue.forEach(s -> queued.add(s.id()));
            current.stream().filter(s -> !queued.contains(s.id()) && !handedOut.contains(s.id()))
                    .forEach(queue::addLast);
        }
    }

    /**
     * Drops from the pool's queue the members not in {@code current} (claimed by another control
     * plane, drained), but for those {@code booting} names (read while they booted: queued by their
     * boot since), and queues none: a quick pass does not know whether a member the timer's last
     * pass left out (its node could not be listed) runs now.
     */
    void keepOnly(String pool, Collection<WarmSandbox> current, Set<String> booting) {
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.get(pool);
        if (queue == null) {
            return;
        }
        synchronized (queue) {
            dropAllBut(queue, current, booting);
        }
    }

    /** Takes out of {@code queue} (held by the caller) the members neither in {@code current} nor named by {@code booting}. */
    private static void dropAllBut(ConcurrentLinkedDeque<WarmSandbox> queue, Collection<WarmSandbox> current,
                                   Set<String> booting) {
        Set<String> ids = new HashSet<>();
        current.forEach(s -> ids.add(s.id()));
        queue.removeIf(s -> !ids.contains(s.id()) && !booting.contains(s.id()));
    }

    /** Handed-out members whose rows are gone (claimed, drained) need no remembering. */
    void forgetHandedOutExcept(Set<String> memberIds) {
        handedOut.retainAll(memberIds);
    }

    void forget(String memberId) {
        ready.values().forEach(q -> q.removeIf(s -> s.id().equals(memberId)));
    }

    void dropPool(String pool) {
        ready.remove(pool);
    }

    int queued(String pool) {
        ConcurrentLinkedDeque<WarmSandbox> queue = ready.get(pool);
        return queue == null ? 0 : queue.size();
    }

    /** Reads the definitions again (after a change, and on every keeper pass). */
    List<PoolDefinition> refresh() {
        List<PoolDefinition> definitions = ledger.definitions();
        Map<String, String> shapes = new ConcurrentHashMap<>();
        definitions.stream().filter(d -> d.size() > 0).forEach(d -> shapes.putIfAbsent(d.shape(), d.name()));
        byShape = Map.copyOf(shapes);
        loaded = true;
        metrics.pools(definitions.stream().map(PoolDefinition::name).toList(), this, this::queued);
        return definitions;
    }

    /**
     * Declares or redefines a pool; whether it was created. A redefinition drains the members of
     * the old shape as the keeper next passes. An executor pool that names no executor server
     * takes its node's now, as the node's requests that name none do.
     *
     * @throws IllegalArgumentException naming what is wrong with the settings
     */
    public boolean declare(PoolSettings declared, String source) {
        validate(declared);
        PoolSettings settings = declared.onNodeDefault(nodes.executorServer(declared.node()));
        for (PoolDefinition other : ledger.definitions()) {
            if (!other.name().equals(settings.name()) && other.shape().equals(settings.shape())) {
                throw new IllegalArgumentException("pool '" + other.name() + "' already keeps sandboxes of these "
                        + "settings (image, cpus, memoryMb, plugins, node, sandbox.executorServer); a request can be "
                        + "served by one pool only");
            }
        }
        String before = ledger.definition(settings.name()).map(PoolDefinition::shape).orElse(null);
        boolean created = ledger.save(settings, source);
        if (before != null && !before.equals(settings.shape())) {
            // members of the old settings are no longer this pool's to hand out
            dropPool(settings.name());
        }
        refresh();
        keeper.tendSoon();
        return created;
    }

    /** Deletes the pool; its members are removed as the keeper next passes. Whether it existed. */
    public boolean delete(String name) {
        boolean deleted = ledger.delete(name);
        refresh();
        dropPool(name);
        keeper.tendSoon();
        return deleted;
    }

    void validate(PoolSettings s) {
        if (s.name() == null || !NAME.matcher(s.name()).matches()) {
            throw new IllegalArgumentException("pool name '" + s.name() + "' must be 1 to 63 lower-case letters, "
                    + "digits and dashes, starting with a letter or digit");
        }
        if (s.image() == null || s.image().isBlank() || s.image().length() > 255) {
            throw new IllegalArgumentException("image must be an image reference");
        }
        if (!(s.cpus() >= 0.1 && s.cpus() <= config.maxCpus())) {
            throw new IllegalArgumentException("cpus must be between 0.1 and " + config.maxCpus());
        }
        if (s.memoryMb() < 128 || s.memoryMb() > config.maxMemoryMb()) {
            throw new IllegalArgumentException("memoryMb must be between 128 and " + config.maxMemoryMb());
        }
        if (!nodes.names().contains(s.node())) {
            throw new IllegalArgumentException("unknown backend node '" + s.node() + "'; configured nodes: "
                    + nodes.names());
        }
        // a pool on another node serves the runtimes placement sends there, those naming it among them
        if (s.size() < 0 || s.size() > config.poolMaxSize()) {
            throw new IllegalArgumentException("size must be between 0 and " + config.poolMaxSize()
                    + " (dockyard.pools.max-size)");
        }
        if (s.program() != null && !s.plugins().isEmpty()) {
            throw new IllegalArgumentException("plugins are the executor's: a pool of another image's program has none");
        }
        if (s.program() != null && s.executorServer() != null) {
            throw new IllegalArgumentException("sandbox.executorServer is the executor's: a pool of another image's "
                    + "program runs none");
        }
        if (s.maxBooting() < 1 || s.maxBooting() > 32) {
            throw new IllegalArgumentException("maxBooting must be between 1 and 32");
        }
    }

    public List<PoolDefinition> definitions() {
        return refresh();
    }

    /** The pool with its counts now, if it exists. */
    public Optional<PoolState> state(String name) {
        return ledger.definition(name).map(d -> new PoolState(d, queued(name), keeper.booting(name),
                ledger.claimedLive(name), hits(name), misses(name), keeper.lastError(name)));
    }

    /** Every pool with its counts. */
    public List<PoolState> states() {
        return definitions().stream().map(d -> new PoolState(d, queued(d.name()), keeper.booting(d.name()),
                ledger.claimedLive(d.name()), hits(d.name()), misses(d.name()), keeper.lastError(d.name()))).toList();
    }

    public Optional<PoolDefinition> definition(String name) {
        return ledger.definition(name);
    }

    long hits(String pool) {
        return counter(hits, pool).get();
    }

    long misses(String pool) {
        return counter(misses, pool).get();
    }

    private static AtomicLong counter(Map<String, AtomicLong> counters, String pool) {
        return counters.computeIfAbsent(pool, p -> new AtomicLong());
    }
}
