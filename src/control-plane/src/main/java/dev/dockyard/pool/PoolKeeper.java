package dev.dockyard.pool;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.Placement;
import dev.dockyard.placement.WarmMembers;
import dev.dockyard.runtime.RuntimeKeys;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
 * incomplete view must not look like dead members. Boots run on managed threads, outside any
 * transaction; each member's row is written before its container exists and after it answers.
 *
 * <p>Refills yield to claims. A claim is a few milliseconds of work, a boot seconds of CPU; on a
 * small machine four JVMs booting beside a burst of claims make every claim wait for the CPU. So
 * a pool boots nothing until {@code dockyard.pools.refill-delay-ms} after its last claim (a pass
 * is scheduled for then), unless its queue is empty (claims are going cold: boot now) or it has
 * held off for ten times that already (a steady stream of claims must not starve the pool); and
 * its members boot at the lowest CPU weight (see {@link SandboxSpec#background()}).
 */
@ApplicationScoped
public class PoolKeeper {

    private static final Logger LOG = Logger.getLogger(PoolKeeper.class.getName());
    /** After a failed boot a pool waits this long before booting again: a missing image must not spin. */
    private static final Duration BACKOFF = Duration.ofSeconds(15);
    private static final int WARM_UP_ACTIONS = 2;
    private static final SandboxConfiguration EMPTY_CONFIGURATION = new SandboxConfiguration(Map.of(), null, null, null);

    @Inject
    PoolLedger ledger;

    @Inject
    WarmPools pools;

    @Inject
    BackendNodes nodes;

    @Inject
    RuntimeImages images;

    @Inject
    ReadinessProbe readiness;

    @Inject
    ExecutorClient executors;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    Placement placement;

    @Inject
    BootTurns turns;

    @Resource
    ManagedExecutorService executor;

    @Resource
    ManagedScheduledExecutorService scheduler;

    /** Member id → pool, for the boots running in this control plane now. */
    private final Map<String, String> booting = new ConcurrentHashMap<>();
    private final Map<String, String> lastError = new ConcurrentHashMap<>();
    private final Map<String, Instant> backoffUntil = new ConcurrentHashMap<>();
    /** Pool → when its refill began to wait for claims to pause. */
    private final Map<String, Instant> holdingSince = new ConcurrentHashMap<>();
    private final AtomicBoolean passScheduled = new AtomicBoolean();
    private final ReentrantLock tending = new ReentrantLock();
    private final AtomicBoolean again = new AtomicBoolean();
    /** Whether this control plane keeps the pools now (the pool keeper's lease, from PoolTimer); always until told. */
    private volatile BooleanSupplier keeping = () -> true;

    /** What one pass did. */
    public record Report(int drained, int boots, boolean skippedSomewhere) {
    }

    /** Tends the pools only while {@code gate} says so: among several control planes, where the lease is. */
    public void keepOnlyWhile(BooleanSupplier gate) {
        keeping = gate;
    }

    /** A pass soon, on a managed thread (after a claim took a member, after a definition changed). */
    public void tendSoon() {
        try {
            executor.execute(this::tend);
        } catch (RejectedExecutionException e) {
            // the timer's next pass will do it
        }
    }

    /**
     * One pass now; asked for while one runs, it runs once more right after (bounded), so no
     * request for a top-up is lost and none waits for a lock.
     */
    public Report tend() {
        if (!keeping.getAsBoolean()) {
            return null;
        }
        if (!tending.tryLock()) {
            again.set(true);
            return null;
        }
        try {
            Report report = tendOnce();
            for (int i = 0; i < 3 && again.getAndSet(false); i++) {
                report = tendOnce();
            }
            return report;
        } finally {
            tending.unlock();
        }
    }

    private Report tendOnce() {
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
                if (!booting.containsKey(member.id()) && member.createdAt().plus(config.reconcilerGrace()).isBefore(now)) {
                    why = "its boot was interrupted (the control plane restarted)";
                }
            } else {
                Optional<Map<String, ManagedSandbox>> listing = listings.computeIfAbsent(member.node(), this::list);
                if (listing.isEmpty()) {
                    skipped = true;
                    alive.merge(member.pool(), 1, Integer::sum);
                    continue;
                }
                ManagedSandbox sandbox = listing.get().get(member.id());
                Optional<String> imageId = imageIds.computeIfAbsent(pool.name(), p -> currentImageId(pool));
                if (sandbox == null) {
                    why = "its sandbox is gone";
                } else if (!sandbox.running()) {
                    why = "its sandbox is not running (" + sandbox.phase() + ")";
                } else if (imageId.isPresent() && member.imageId() != null && !imageId.get().equals(member.imageId())) {
                    why = "its image was rebuilt";
                }
            }
            if (why != null) {
                if (drain(member, why)) {
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
                if (member != null && drain(member, "its pool was made smaller (size " + pool.size() + ")")) {
                    drained++;
                }
            }
        }
        Set<String> rows = new HashSet<>();
        members.forEach(m -> rows.add(m.id()));
        pools.forgetHandedOutExcept(rows);
        int boots = 0;
        for (PoolDefinition pool : definitions) {
            pools.retain(pool.name(), current.getOrDefault(pool.name(), List.of()));
            int missing = pool.size() - alive.getOrDefault(pool.name(), 0);
            long bootingNow = booting.values().stream().filter(pool.name()::equals).count();
            int start = (int) Math.min(missing, pool.maxBooting() - bootingNow);
            Instant wait = backoffUntil.get(pool.name());
            if (start <= 0 || (wait != null && wait.isAfter(now))) {
                continue;
            }
            Optional<Duration> holdOff = holdOff(pool.name(), now);
            if (holdOff.isPresent()) {
                tendIn(holdOff.get());
                continue;
            }
            start = withinNodeMemory(pool, start);
            for (int i = 0; i < start; i++) {
                if (boot(pool)) {
                    boots++;
                }
            }
        }
        return new Report(drained, boots, skipped);
    }

    /**
     * How many of {@code wanted} boots the pool's node has memory for, when its memory is bounded:
     * members hold their memory from the moment they boot (see {@link WarmMembers}), so a full node
     * gets no more of them, and the pool says why.
     */
    private int withinNodeMemory(PoolDefinition pool, int wanted) {
        OptionalLong free = placement.freeMemoryMb(pool.node());
        if (free.isEmpty()) {
            return wanted;
        }
        long fit = Math.max(0, free.getAsLong() / Math.max(1, pool.memoryMb()));
        if (fit >= wanted) {
            return wanted;
        }
        lastError.put(pool.name(), "node '" + pool.node() + "' has " + Math.max(0, free.getAsLong())
                + " MB of its max-memory-mb left: room for " + fit + " more warm member(s) of " + pool.memoryMb()
                + " MB");
        return (int) fit;
    }

    /**
     * How much longer the pool's refill waits for claims to pause, or empty to boot now (see the
     * class comment).
     */
    private Optional<Duration> holdOff(String pool, Instant now) {
        Duration delay = config.poolRefillDelay();
        Instant lastClaim = pools.lastClaimAt(pool);
        if (delay.isZero() || lastClaim == null || !lastClaim.plus(delay).isAfter(now) || pools.queued(pool) == 0) {
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

    /** One pass after {@code delay} (at most one such pass waits at a time; the timer's come anyway). */
    private void tendIn(Duration delay) {
        if (!passScheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.schedule(() -> {
                passScheduled.set(false);
                tend();
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

    /** The id of the image the pool's members should run now, without building anything; empty when unknown. */
    private Optional<String> currentImageId(PoolDefinition pool) {
        try {
            if (pool.program().isPresent()) {
                // another image's own server runs the image as it is
                return images.inspect(pool.node(), pool.image()).map(RuntimeImageBuilder.ImageInfo::id);
            }
            Optional<String> id = images.current(pool.node(), pool.image()).map(RuntimeImageBuilder.ImageInfo::id);
            Instant wait = backoffUntil.get(pool.name());
            if (id.isEmpty() && (wait == null || wait.isBefore(clock.instant()))) {
                // a base whose runtime image of today's bundle is not built yet: build it (or join
                // the build under way), and the members of the old one drain once it exists
                images.submit(pool.node(), pool.image(), ExtraDependencies.NONE, false).image()
                        .exceptionally(failed -> {
                            lastError.put(pool.name(), "building its runtime image failed: " + failed.getMessage());
                            backoffUntil.put(pool.name(), clock.instant().plus(BACKOFF));
                            return null;
                        });
            }
            return id;
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static PoolMember memberOf(List<PoolMember> members, String id) {
        return members.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
    }

    /** Drops the member's row if nothing claimed it meanwhile, then removes its sandbox. */
    private boolean drain(PoolMember member, String why) {
        try {
            if (!ledger.drop(member.id(), member.status())) {
                return false;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Pool '" + member.pool() + "': could not drop member " + member.id() + " ("
                    + why + "); the next pass tries again: " + e.getMessage());
            return false;
        }
        pools.forget(member.id());
        LOG.info("Pool '" + member.pool() + "': removed warm sandbox " + member.containerName() + " because " + why);
        removeQuietly(member.node(), member.containerName());
        return true;
    }

    private boolean boot(PoolDefinition pool) {
        PoolMember member = new PoolMember(RuntimeKeys.newRuntimeId(), pool.name(), pool.node(), config.instance(),
                pool.shape(), RuntimeKeys.newSessionKey(), clock.instant());
        try {
            ledger.booting(member);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Pool '" + pool.name() + "': could not record a new member: " + e.getMessage());
            return false;
        }
        booting.put(member.id(), pool.name());
        try {
            executor.execute(() -> {
                boolean handedOn = false;
                try {
                    handedOn = bootNow(pool, member);
                } finally {
                    if (!handedOn) {
                        booting.remove(member.id());
                    }
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            booting.remove(member.id());
            ledger.drop(member.id(), null);
            return false;
        }
    }

    private boolean stillMember(PoolMember member) {
        return ledger.members(config.instance()).stream().anyMatch(m -> m.id().equals(member.id()));
    }

    /**
     * Boots a member: its image and spec here, its sandbox once the node gives it a turn (after
     * every waiting request), on a managed thread then; no thread is held while it waits. Returns
     * whether the boot was handed on to its turn, which then ends the member's {@code booting} mark.
     */
    private boolean bootNow(PoolDefinition pool, PoolMember member) {
        MemberBoot boot;
        try {
            boot = prepare(pool, member);
        } catch (RuntimeException e) {
            failed(pool, member, e);
            return false;
        }
        boolean[] waited = new boolean[1];
        try {
            turns.whenTurn(pool.node(), BootTurns.Line.POOL, (booting, ahead) -> waited[0] = true, executor, turn -> {
                try {
                    withTurn(pool, member, boot, turn, waited[0]);
                } finally {
                    booting.remove(member.id());
                }
            }, refused -> {
                booting.remove(member.id());
                failed(pool, member, refused);
            });
        } catch (RuntimeException e) {
            // no turn taken (e.g. a malformed max-concurrent-boots of the node): the pool backs off with the cause
            failed(pool, member, e);
            return false;
        }
        return true;
    }

    /** A member's sandbox as the pool boots it, and the image it runs (by name and by id). */
    private record MemberBoot(SandboxSpec spec, String runtimeImage, String imageId) {
    }

    private MemberBoot prepare(PoolDefinition pool, PoolMember member) {
        Optional<PoolProgram> program = pool.program();
        SandboxSpec spec;
        String runtimeImage;
        if (program.isEmpty()) {
            runtimeImage = images.resolve(pool.node(), pool.image(), ExtraDependencies.NONE,
                    build -> LOG.info("Pool '" + pool.name() + "': building runtime image for " + pool.image()
                            + " (build " + build.id() + ")")).image();
            // the Remote Runtime API's work ports too: a /start of a Dockyard image may claim it
            spec = new SandboxSpec(member.id(), "", config.instance(), member.containerName(), runtimeImage, pool.cpus(),
                    config.sandboxBootCpus(), pool.memoryMb(), config.sandboxPidsLimit(), config.sandboxUser(),
                    config.executorPort(), member.sessionKey(), pool.plugins(), null,
                    config.runtimeApiWorkPorts()).withLabels(Map.of(Labels.POOL, pool.name())).inBackground()
                    // part of the pool's shape: a claim gets a member started as its runtime would be
                    .withExecutorServer(pool.executorServer().orElse(null));
        } else {
            runtimeImage = pool.image();
            spec = dormantSpec(pool, program.get(), member);
        }
        String imageId = images.inspect(pool.node(), runtimeImage).map(RuntimeImageBuilder.ImageInfo::id)
                .orElseThrow(() -> new BackendException("image '" + runtimeImage + "' is not on node '"
                        + pool.node() + "'"));
        return new MemberBoot(spec, runtimeImage, imageId);
    }

    /** With the node's turn: the member's sandbox created, booted, warmed up and offered for claims. */
    private void withTurn(PoolDefinition pool, PoolMember member, MemberBoot boot, BootTurns.Turn turn,
                          boolean waited) {
        RuntimeBackend backend = nodes.on(pool.node());
        String name = member.containerName();
        Optional<PoolProgram> program = pool.program();
        SandboxSpec spec = boot.spec();
        String runtimeImage = boot.runtimeImage();
        String imageId = boot.imageId();
        try {
            if (waited && !stillMember(member)) {
                // drained while it waited (its pool redefined or deleted): no sandbox to boot for it
                LOG.info("Pool '" + pool.name() + "': warm sandbox " + name + " was drained before it booted");
                return;
            }
            String containerId;
            URI endpoint;
            try {
                containerId = backend.create(spec);
                endpoint = backend.start(name, spec.executorPort());
                // a dormant server is up once it answers HTTP at all (its /api routes say 503 until the init)
                readiness.probe(new ReadinessAttempt(backend, name, endpoint, member.sessionKey(),
                        config.sandboxTimeout(), clock, program.isPresent()));
            } catch (RuntimeException e) {
                // gone before the turn is: the next boot does not start beside a JVM still booting
                removeQuietly(pool.node(), name);
                throw e;
            }
            turn.close();
            backend.settle(name, pool.cpus());
            if (program.isEmpty()) {
                warmUp(endpoint, member.sessionKey());
            }
            if (!ledger.ready(member.id(), containerId, endpoint.toString(), runtimeImage, imageId)) {
                LOG.info("Pool '" + pool.name() + "': warm sandbox " + name + " was drained while booting");
                removeQuietly(pool.node(), name);
                return;
            }
            lastError.remove(pool.name());
            backoffUntil.remove(pool.name());
            // drained between its record and here, a claim of it fails in the database and tries the next
            pools.offer(new WarmSandbox(member.id(), pool.name(), member.shape(), member.sessionKey(), containerId,
                    endpoint.toString(), runtimeImage, clock.instant()));
        } catch (RuntimeException e) {
            failed(pool, member, e);
        }
    }

    /** A member that failed to boot: its sandbox removed, its row dropped, the pool's error and back-off set. */
    private void failed(PoolDefinition pool, PoolMember member, RuntimeException e) {
        String name = member.containerName();
        if (!stillMember(member)) {
            // drained while it booted (its pool redefined or deleted): its sandbox went with it
            removeQuietly(pool.node(), name);
            return;
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        LOG.warning("Pool '" + pool.name() + "': warm sandbox " + name + " failed to boot: " + message);
        lastError.put(pool.name(), message.length() > 500 ? message.substring(0, 500) + "…" : message);
        backoffUntil.put(pool.name(), clock.instant().plus(BACKOFF));
        removeQuietly(pool.node(), name);
        try {
            ledger.drop(member.id(), null);
        } catch (RuntimeException ignored) {
            // the next pass finds the row, its boot no longer running, and drops it
        }
    }

    /**
     * Runs a harmless command in a new member's shell, twice, and pushes an empty configuration
     * once: the first action and the first {@code /configure} a fresh executor answers load and
     * link their whole path (tens to hundreds of milliseconds of one CPU), which would otherwise
     * be the claim's and the agent's first command. The shell is left as it was ({@code true} sets
     * nothing but {@code $?}, which is 0 in a fresh shell too; an empty configuration exports
     * nothing, and the claim's own replaces it).
     */
    private void warmUp(URI endpoint, String sessionKey) {
        executors.configure(endpoint, sessionKey, EMPTY_CONFIGURATION);
        JsonObject action = Jsonp.createObjectBuilder().add("action", "run")
                .add("args", Jsonp.createObjectBuilder().add("command", "true")).build();
        for (int i = 0; i < WARM_UP_ACTIONS; i++) {
            ExecutorClient.ExecutorAnswer answer = executors.execute(endpoint, sessionKey, action,
                    Duration.ofSeconds(30), null);
            if (answer.status() != 200) {
                throw new BackendException("the warm-up command was answered with HTTP " + answer.status());
            }
        }
    }

    /**
     * A member of another image's server, booted dormant: its environment file holds the pool's
     * variables, the deferred-init switch and its own init key, and no session key at all; the
     * ports are those the Remote Runtime API publishes for such an image.
     */
    private SandboxSpec dormantSpec(PoolDefinition pool, PoolProgram program, PoolMember member) {
        Map<String, String> environment = new LinkedHashMap<>(program.environment());
        for (String variable : config.programSessionKeyVariables()) {
            environment.remove(variable);
        }
        environment.put("OH_DEFERRED_INIT", "true");
        environment.put("OH_SECRET_KEY", member.sessionKey());
        environment.put("RUNTIME_ID", member.id());
        // its stateless services (VS Code) start dormant: they need their path now, not at the init
        environment.put("OH_VSCODE_BASE_PATH", "/" + member.id() + "/vscode");
        environment.putIfAbsent("VSCODE_PORT", String.valueOf(config.runtimeApiVscodePort()));
        List<Integer> ports = new ArrayList<>();
        ports.add(config.runtimeApiVscodePort());
        ports.addAll(config.runtimeApiWorkPorts());
        SandboxProcess process = new SandboxProcess(program.command(), program.workingDir(), environment, null);
        return new SandboxSpec(member.id(), "", config.instance(), member.containerName(), pool.image(), pool.cpus(),
                pool.cpus(), pool.memoryMb(), config.sandboxPidsLimit(), program.user(), config.runtimeApiAgentPort(),
                member.sessionKey(), List.of(), process, ports).withLabels(Map.of(Labels.POOL, pool.name())).inBackground();
    }

    private void removeQuietly(String node, String name) {
        try {
            nodes.on(node).remove(name);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove warm sandbox " + name + "; the reconciler will", e);
        }
    }

    /** Members of this control plane (every status): the reconciler leaves their sandboxes alone. */
    public Set<String> memberIds() {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        ledger.members(config.instance()).forEach(m -> ids.add(m.id()));
        ids.addAll(booting.keySet());
        return ids;
    }

    int booting(String pool) {
        return (int) booting.values().stream().filter(pool::equals).count();
    }

    String lastError(String pool) {
        return lastError.get(pool);
    }
}
