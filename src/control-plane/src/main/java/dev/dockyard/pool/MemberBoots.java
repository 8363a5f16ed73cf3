package dev.dockyard.pool;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.runtime.RuntimeKeys;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Boots new members of a pool, on managed threads and outside any transaction. A member's row is
 * written (BOOTING) before its container exists; its image and spec are prepared; its node gives
 * it a turn after every waiting request ({@link BootTurns}), no thread held while it waits; then
 * its sandbox is created, started, probed, settled to its steady CPUs and warmed up, and its row
 * is marked READY and it is queued for claims. A member drained while it booted leaves no sandbox;
 * one that fails leaves no row, and its pool backs off ({@link PoolHealth}).
 */
@ApplicationScoped
public class MemberBoots {

    private static final Logger LOG = Logger.getLogger(MemberBoots.class.getName());
    private static final int WARM_UP_ACTIONS = 2;
    private static final SandboxConfiguration EMPTY_CONFIGURATION = new SandboxConfiguration(Map.of(), null, null, null);

    @Inject
    PoolLedger ledger;

    @Inject
    WarmPools pools;

    @Inject
    BackendNodes nodes;

    @Inject
    PoolImages images;

    @Inject
    ReadinessProbe readiness;

    @Inject
    ExecutorClient executors;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    BootTurns turns;

    @Inject
    PoolHealth health;

    @Inject
    MemberDrain drain;

    @Resource
    ManagedExecutorService executor;

    /** Member id → pool, for the boots running in this control plane now. */
    private final Map<String, String> booting = new ConcurrentHashMap<>();

    /** Told each time a boot ends (the keeper: its slot may start the next one now). */
    private volatile Runnable whenBootEnds = () -> {
    };

    /**
     * Runs {@code task} each time a member's boot ends, ready or not. The keeper starts the next boot
     * then, not at its next timed pass: with four boots at once and the default 5 s between passes,
     * 40 members took 46.6 s with finished slots waiting for the pass, and take 30.0 s so.
     */
    void whenBootEnds(Runnable task) {
        whenBootEnds = task;
    }

    /** The boot's slot is free again (a failed boot has recorded its failure first, so the pool backs off). */
    private void ended(PoolMember member) {
        booting.remove(member.id());
        whenBootEnds.run();
    }

    /** Whether the member's boot runs in this control plane now. */
    boolean isBooting(String memberId) {
        return booting.containsKey(memberId);
    }

    /** How many of the pool's members boot in this control plane now. */
    long bootingIn(String pool) {
        return booting.values().stream().filter(pool::equals).count();
    }

    /** The members whose boots run in this control plane now (a live view). */
    Set<String> memberIds() {
        return booting.keySet();
    }

    /** Records a new member of the pool and starts its boot; whether it did. */
    boolean boot(PoolDefinition pool) {
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
                        ended(member);
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
                    ended(member);
                }
            }, refused -> {
                try {
                    failed(pool, member, refused);
                } finally {
                    ended(member);
                }
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
        String runtimeImage = images.forBoot(pool);
        SandboxSpec spec = program.isEmpty() ? MemberSpecs.executor(pool, member, runtimeImage, config)
                : MemberSpecs.dormant(pool, program.get(), member, config);
        return new MemberBoot(spec, runtimeImage, images.idOf(pool, runtimeImage));
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
                drain.removeQuietly(pool.node(), name);
                throw e;
            }
            turn.close();
            backend.settle(name, pool.cpus());
            if (program.isEmpty()) {
                warmUp(endpoint, member.sessionKey());
            }
            if (!ledger.ready(member.id(), containerId, endpoint.toString(), runtimeImage, imageId)) {
                LOG.info("Pool '" + pool.name() + "': warm sandbox " + name + " was drained while booting");
                drain.removeQuietly(pool.node(), name);
                return;
            }
            health.recovered(pool.name());
            // drained between its record and here, a claim of it fails in the database and tries the next
            pools.offer(new WarmSandbox(member.id(), pool.name(), member.shape(), member.sessionKey(), containerId,
                    endpoint.toString(), runtimeImage, clock.instant()));
        } catch (RuntimeException e) {
            failed(pool, member, e);
        } catch (Error e) {
            // recorded as a failure all the same: the pool backs off before its slot starts another boot
            failed(pool, member, new IllegalStateException(e.toString(), e));
            throw e;
        }
    }

    /** A member that failed to boot: its sandbox removed, its row dropped, the pool's error and back-off set. */
    private void failed(PoolDefinition pool, PoolMember member, RuntimeException e) {
        String name = member.containerName();
        if (!stillMember(member)) {
            // drained while it booted (its pool redefined or deleted): its sandbox went with it
            drain.removeQuietly(pool.node(), name);
            return;
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        LOG.warning("Pool '" + pool.name() + "': warm sandbox " + name + " failed to boot: " + message);
        health.failed(pool.name(), message.length() > 500 ? message.substring(0, 500) + "…" : message);
        drain.removeQuietly(pool.node(), name);
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
}
