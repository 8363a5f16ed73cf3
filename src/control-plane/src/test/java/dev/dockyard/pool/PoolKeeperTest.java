package dev.dockyard.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.placement.NodeCapacity;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.json.JsonObject;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The keeper's decisions against a fake engine, an in-memory ledger and a clock it does not read itself. */
class PoolKeeperTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeNodes nodes = new FakeNodes("local");
    private final FakeBackend backend = nodes.backend("local");
    private final TestConfig config = new TestConfig();
    private final MemoryLedger ledger = new MemoryLedger();
    private final WarmPools pools = new WarmPools();
    private final PoolKeeper keeper = new PoolKeeper();
    private final MemberBoots boots = new MemberBoots();
    private final MemberDrain drain = new MemberDrain();
    private final PoolImages poolImages = new PoolImages();
    private final RefillPacing pacing = new RefillPacing();
    private final PoolHealth health = new PoolHealth();
    private final List<Runnable> queued = new ArrayList<>();
    private final List<Long> scheduledMillis = new ArrayList<>();
    private boolean runAtOnce = true;
    private String imageId = "sha256:one";
    private RuntimeException bootFailure;
    /** When set, a boot's readiness waits for it (and tells {@link #bootWaiting} it does). */
    private CountDownLatch bootGate;
    private final CountDownLatch bootWaiting = new CountDownLatch(1);
    private final List<String> warmUps = new ArrayList<>();
    private final Map<String, NodeCapacity> capacities = new HashMap<>();

    @BeforeEach
    void wire() {
        ledger.clock = clock;
        pools.ledger = ledger;
        pools.nodes = nodes;
        pools.config = config;
        pools.keeper = keeper;
        pools.clock = clock;
        keeper.ledger = ledger;
        keeper.pools = pools;
        keeper.nodes = nodes;
        keeper.config = config;
        keeper.clock = clock;
        keeper.boots = boots;
        keeper.drain = drain;
        keeper.images = poolImages;
        keeper.pacing = pacing;
        keeper.health = health;
        health.clock = clock;
        drain.ledger = ledger;
        drain.pools = pools;
        drain.nodes = nodes;
        pacing.config = config;
        pacing.pools = pools;
        pacing.placement = Placements.over(nodes, new FakeRuntimes(), ledger, clock, capacities);
        pacing.health = health;
        boots.ledger = ledger;
        boots.pools = pools;
        boots.nodes = nodes;
        boots.images = poolImages;
        boots.config = config;
        boots.clock = clock;
        boots.turns = Placements.turns(config);
        boots.health = health;
        boots.drain = drain;
        poolImages.health = health;
        poolImages.clock = clock;
        poolImages.images = new RuntimeImages() {
            @Override
            public Resolution resolve(String node, String image, ExtraDependencies extra, Consumer<ImageBuild> onBuild) {
                return new Resolution(image, null);
            }

            @Override
            public Optional<RuntimeImageBuilder.ImageInfo> inspect(String node, String image) {
                return Optional.of(new RuntimeImageBuilder.ImageInfo(imageId, Set.of(image), 1, Map.of()));
            }

            @Override
            public Optional<RuntimeImageBuilder.ImageInfo> current(String node, String image) {
                return inspect(node, image);
            }
        };
        boots.readiness = new ReadinessProbe() {
            @Override
            public void probe(ReadinessAttempt attempt) {
                if (bootFailure != null) {
                    throw bootFailure;
                }
                if (bootGate != null) {
                    bootWaiting.countDown();
                    try {
                        if (!bootGate.await(10, TimeUnit.SECONDS)) {
                            throw new BackendException("the test never let the boot go on", null);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        boots.executors = new ExecutorClient() {
            @Override
            public ExecutorAnswer execute(URI executor, String sessionKey, JsonObject action, Duration hardTimeout,
                                          String requestId) {
                warmUps.add(executor + " " + action.getJsonObject("args").getString("command"));
                return new ExecutorAnswer(200, "{}");
            }

            @Override
            public void configure(URI executor, String sessionKey, SandboxConfiguration configuration) {
                warmUps.add(executor + " configure " + configuration.env());
            }
        };
        boots.executor = (ManagedExecutorService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    if (method.getName().equals("execute")) {
                        Runnable task = (Runnable) args[0];
                        if (runAtOnce) {
                            task.run();
                        } else {
                            queued.add(task);
                        }
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        keeper.executor = boots.executor;
        keeper.scheduler = (ManagedScheduledExecutorService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ManagedScheduledExecutorService.class}, (proxy, method, args) -> {
                    if (method.getName().equals("schedule") && args[0] instanceof Runnable) {
                        scheduledMillis.add(((TimeUnit) args[2]).toMillis((Long) args[1]));
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private void define(String name, int size, int maxBooting) {
        ledger.save(new PoolSettings(name, "img", 1.0, 512, List.of(), "local", size, maxBooting), "api");
    }

    private List<PoolMember> members(PoolMember.Status status) {
        return ledger.members(config.instance).stream().filter(m -> m.status() == status).toList();
    }

    @Test
    void shouldHoldRefillsBackWhileClaimsArriveAndBootOnceTheyPause() {
        config.poolRefillDelay = Duration.ofMillis(1500);
        define("p", 3, 3);
        keeper.tend();
        assertEquals(3, members(PoolMember.Status.READY).size());

        ledger.drop(pools.next("p").orElseThrow().id(), null);
        clock.advance(Duration.ofMillis(500));
        keeper.tend();

        assertEquals(2, ledger.members(config.instance).size(), "no boot 0.5 s after a claim");
        assertEquals(List.of(1010L), scheduledMillis, "a pass is scheduled for when the delay has passed");
        clock.advance(Duration.ofMillis(1000));
        keeper.tend();
        assertEquals(3, members(PoolMember.Status.READY).size(), "refilled once claims paused");
    }

    @Test
    void shouldRunNoPassAfterEachClaimWhileTheRefillHoldsBackButOneWhenItMayBoot() {
        config.poolRefillDelay = Duration.ofMillis(1500);
        define("p", 5, 5);
        keeper.tend();
        assertEquals(5, members(PoolMember.Status.READY).size());
        long listed = backend.calls().stream().filter("list"::equals).count();

        // three claims in a row: the refill would wait for them to pause, so no pass lists the node now
        for (int i = 0; i < 3; i++) {
            ledger.drop(pools.next("p").orElseThrow().id(), null);
            keeper.claimedFrom("p");
            clock.advance(Duration.ofMillis(100));
        }
        assertEquals(listed, backend.calls().stream().filter("list"::equals).count(), backend.calls().toString());
        assertEquals(List.of(1510L), scheduledMillis, "one pass, for when the delay after the first claim is over");

        // the last members claimed: the queue is empty, but no claim went cold yet; the next one does
        ledger.drop(pools.next("p").orElseThrow().id(), null);
        ledger.drop(pools.next("p").orElseThrow().id(), null);
        keeper.claimedFrom("p");
        assertTrue(members(PoolMember.Status.READY).isEmpty(), "emptied by claims: they are still being configured");
        assertTrue(pools.next("p").isEmpty());
        keeper.claimedFrom("p");
        assertEquals(5, members(PoolMember.Status.READY).size(), "claims are going cold: the refill boots at once");
    }

    /**
     * A burst as large as the pool empties its queue while its claims are still being configured:
     * boots then took a third of the machine's CPU from them. Only a claim that found the queue
     * empty (it goes cold) makes the refill boot before the delay is over.
     */
    @Test
    void shouldHoldBackWhenClaimsEmptiedThePoolAndBootAtOnceWhenOneFindsItEmpty() {
        config.poolRefillDelay = Duration.ofMillis(1500);
        define("p", 1, 1);
        keeper.tend();
        ledger.drop(pools.next("p").orElseThrow().id(), null);

        keeper.tend();
        assertTrue(members(PoolMember.Status.READY).isEmpty(), "no boot while the burst that emptied it is served");
        assertEquals(List.of(1510L), scheduledMillis, "a pass for when the delay is over");

        assertTrue(pools.next("p").isEmpty(), "the next claim goes cold");
        keeper.tend();
        assertEquals(1, members(PoolMember.Status.READY).size(), "claims are going cold: no holding back");
    }

    @Test
    void shouldNotHoldRefillsBackForeverUnderASteadyStreamOfClaims() {
        config.poolRefillDelay = Duration.ofMillis(1000);
        define("p", 30, 1);
        for (int i = 0; i < 30; i++) {
            keeper.tend();
        }
        assertEquals(30, members(PoolMember.Status.READY).size());
        int booted = 0;
        for (int second = 0; second < 12; second++) {
            ledger.drop(pools.next("p").orElseThrow().id(), null);
            clock.advance(Duration.ofMillis(500));
            int before = ledger.members(config.instance).size();
            keeper.tend();
            booted += ledger.members(config.instance).size() - before;
            clock.advance(Duration.ofMillis(500));
        }
        assertTrue(booted >= 1, "a claim every second still lets the pool refill after ten delays");
    }

    @Test
    void shouldBootPoolMembersInTheBackground() {
        define("p", 1, 1);
        keeper.tend();
        assertTrue(backend.createdSpecs().stream().allMatch(SandboxSpec::background));
        assertTrue(backend.calls().stream().anyMatch(c -> c.startsWith("settle ")), "normal weight once ready");
    }

    @Test
    void shouldBootNoMoreThanMaxBootingAtOnce() {
        define("p", 5, 2);
        runAtOnce = false;

        keeper.tend();
        keeper.tend();

        assertEquals(2, members(PoolMember.Status.BOOTING).size(), "two boots at once, however many passes");
        assertEquals(2, queued.size());
        queued.forEach(Runnable::run);
        queued.clear();
        assertEquals(2, members(PoolMember.Status.READY).size());
        keeper.tend();
        assertEquals(2, queued.size(), "the next two boots start once the first two are done");
    }

    @Test
    void shouldStartTheNextBootAsSoonAsOneEndsNotAtTheNextPass() {
        fillOneBootAtATime(3);

        assertEquals(3, members(PoolMember.Status.READY).size(), "each ended boot started the next one");
        assertTrue(queued.isEmpty());
    }

    /** A pool of {@code size}, one boot at a time: one pass, then only the work the boots themselves queue (no timer pass). */
    private void fillOneBootAtATime(int size) {
        define("p", size, 1);
        runAtOnce = false;
        keeper.startNextBootsWhenBootsEnd();
        keeper.tend();
        for (int i = 0; i < 100 && !queued.isEmpty(); i++) {
            queued.remove(0).run();
        }
    }

    /**
     * A pool of a hundred boots a hundred members, and a pass after each that listed every
     * container of the node made the engine's work grow with the square of the pool. The passes a
     * boot's end starts read the ledger only; the timer's list the node.
     */
    @Test
    void shouldListTheNodeInTheTimersPassesOnlyNotInThoseABootsEndStarts() {
        fillOneBootAtATime(5);
        long listedWhileFilling = backend.calls().stream().filter("list"::equals).count();
        keeper.tend();

        assertEquals(5, members(PoolMember.Status.READY).size(), "each ended boot started the next one");
        assertEquals(0, listedWhileFilling, backend.calls().toString());
        assertEquals(1, backend.calls().stream().filter("list"::equals).count(), "the timer's pass lists the node");
    }

    @Test
    void shouldDrainAMemberWhoseSandboxIsGoneAtTheTimersPassNotAtAQuickOne() {
        define("p", 2, 2);
        keeper.tend();
        PoolMember gone = members(PoolMember.Status.READY).get(0);
        backend.remove(gone.containerName());

        keeper.tendQuickly();
        boolean keptByTheQuickPass = ledger.members(config.instance).stream().anyMatch(m -> m.id().equals(gone.id()));
        keeper.tend();

        assertTrue(keptByTheQuickPass, "a quick pass does not ask the engine");
        assertFalse(ledger.members(config.instance).stream().anyMatch(m -> m.id().equals(gone.id())),
                "the timer's pass drained it");
        assertEquals(2, members(PoolMember.Status.READY).size(), "and booted another");
    }

    /**
     * The timer's pass came while a quick one ran: it is not lost but runs right after it, and as
     * the timer's kind, which asks the engine (a repeat as a quick pass would leave a member whose
     * sandbox died queued for claims until the timer's next pass).
     */
    @Test
    void shouldRunATimersPassAskedForWhileAQuickOneRanRightAfterItWithTheEngine() throws Exception {
        define("p", 2, 2);
        keeper.tend();
        WarmSandbox claimed = pools.next("p").orElseThrow();
        ledger.drop(claimed.id(), null);
        PoolMember died = members(PoolMember.Status.READY).get(0);
        backend.remove(died.containerName());
        long listed = backend.calls().stream().filter("list"::equals).count();

        bootGate = new CountDownLatch(1);
        Thread quick = new Thread(keeper::tendQuickly);
        quick.start();
        assertTrue(bootWaiting.await(10, TimeUnit.SECONDS), "the quick pass boots the claimed member's successor");
        PoolKeeper.Report timers = keeper.tend();
        bootGate.countDown();
        quick.join(10_000);

        assertFalse(quick.isAlive(), "the quick pass and its repeat ended");
        assertNull(timers, "the timer's pass did not wait for the lock");
        assertEquals(listed + 1, backend.calls().stream().filter("list"::equals).count(), backend.calls().toString());
        assertFalse(ledger.members(config.instance).stream().anyMatch(m -> m.id().equals(died.id())),
                "the repeat asked the engine and drained the member whose sandbox died");
        assertEquals(2, members(PoolMember.Status.READY).size());
    }

    /**
     * Among several control planes only the lease holder keeps the pools. The timer's passes ask
     * the gate that renews the lease (a database write); the quick passes, a few per claim or boot,
     * ask only whether it is still held, and do nothing where it is not.
     */
    @Test
    void shouldTendInAQuickPassOnlyWhileTheLeaseIsHeldWithoutRenewingIt() {
        define("p", 1, 1);
        List<String> asked = new ArrayList<>();
        boolean[] held = {false};
        keeper.keepOnlyWhile(() -> {
            asked.add("renew");
            return true;
        }, () -> {
            asked.add("held");
            return held[0];
        });

        assertNull(keeper.tendQuickly());
        assertTrue(ledger.members(config.instance).isEmpty(), "no lease: nothing booted");
        held[0] = true;
        keeper.tendQuickly();
        assertEquals(1, members(PoolMember.Status.READY).size());
        assertEquals(List.of("held", "held"), asked, "a quick pass never renews the lease");

        keeper.tend();
        assertEquals(List.of("held", "held", "renew"), asked);
    }

    @Test
    void shouldNotQueueAgainInAQuickPassAMemberTheTimersPassLeftOut() {
        define("p", 1, 1);
        keeper.tend();
        // the node cannot be listed: the timer's pass leaves its member out of the claims' queue
        backend.unlistable();
        keeper.tend();
        boolean queuedAfterTheTimersPass = pools.next("p").isPresent();

        keeper.tendQuickly();

        assertFalse(queuedAfterTheTimersPass);
        assertTrue(pools.next("p").isEmpty(), "its sandbox may not run: a claim would wait for a node cut off");
    }

    @Test
    void shouldQueueEachReadyMemberForOneClaimOnly() {
        define("p", 3, 3);

        keeper.tend();

        Set<String> claimed = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            claimed.add(pools.next("p").orElseThrow().id());
        }
        assertEquals(3, claimed.size());
        assertTrue(pools.next("p").isEmpty(), "an empty pool is a miss, not an error");
        assertEquals(1, pools.misses("p"));
        assertEquals(9, warmUps.size(), "an empty configuration and two warm-up commands per member: " + warmUps);
        assertEquals(6, warmUps.stream().filter(w -> w.endsWith(" true")).count());
        assertEquals(3, warmUps.stream().filter(w -> w.endsWith(" configure {}")).count(), "nothing exported");
        for (PoolMember m : members(PoolMember.Status.READY)) {
            assertEquals(SandboxState.Phase.RUNNING, backend.phase(m.containerName()));
            assertTrue(backend.calls().contains("settle " + m.containerName()), "settled to its CPUs once ready");
        }
    }

    @Test
    void shouldReplaceMemberWhoseSandboxDied() {
        define("p", 2, 2);
        keeper.tend();
        PoolMember dead = members(PoolMember.Status.READY).get(0);
        backend.put(dead.containerName(), dead.id(), Instant.EPOCH, SandboxState.Phase.EXITED);

        keeper.tend();

        List<PoolMember> now = members(PoolMember.Status.READY);
        assertEquals(2, now.size());
        assertTrue(now.stream().noneMatch(m -> m.id().equals(dead.id())), "the dead member is replaced");
        assertTrue(backend.calls().contains("remove " + dead.containerName()));
    }

    @Test
    void shouldDrainEveryMemberWhenTheImageIsRebuilt() {
        define("p", 2, 2);
        keeper.tend();
        List<String> old = members(PoolMember.Status.READY).stream().map(PoolMember::id).toList();

        imageId = "sha256:two";
        keeper.tend();

        List<PoolMember> now = members(PoolMember.Status.READY);
        assertEquals(2, now.size());
        assertTrue(now.stream().allMatch(m -> m.imageId().equals("sha256:two")));
        old.forEach(id -> assertTrue(backend.calls().contains("remove dockyard-" + id)));
        pools.next("p").ifPresent(s -> assertFalse(old.contains(s.id()), "no claim of a drained member"));
    }

    @Test
    void shouldGiveBackTheSurplusOfAPoolMadeSmallerTheLastReadyFirst() {
        define("p", 3, 3);
        List<String> byAge = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // one member at a time, so that each became ready at its own moment
            ledger.save(new PoolSettings("p", "img", 1.0, 512, List.of(), "local", i + 1, 3), "api");
            keeper.tend();
            members(PoolMember.Status.READY).stream().map(PoolMember::id).filter(id -> !byAge.contains(id))
                    .forEach(byAge::add);
            clock.advance(Duration.ofSeconds(1));
        }
        assertEquals(3, byAge.size());

        ledger.save(new PoolSettings("p", "img", 1.0, 512, List.of(), "local", 1, 3), "api");
        keeper.tend();

        // the ledger lists members oldest first: the order of the drain is the keeper's own
        assertEquals(List.of(byAge.get(0)), members(PoolMember.Status.READY).stream().map(PoolMember::id).toList(),
                "the oldest stays, first in line for claims");
        assertTrue(backend.calls().contains("remove dockyard-" + byAge.get(1)));
        assertTrue(backend.calls().contains("remove dockyard-" + byAge.get(2)));
        assertEquals(byAge.get(0), pools.next("p").orElseThrow().id(), "only the one kept is handed out");
        assertTrue(pools.next("p").isEmpty());
    }

    @Test
    void shouldDrainMembersOfRedefinedAndDeletedPools() {
        define("p", 1, 1);
        define("q", 1, 1);
        keeper.tend();
        String ofP = members(PoolMember.Status.READY).stream().filter(m -> m.pool().equals("p")).findFirst()
                .orElseThrow().id();
        String ofQ = members(PoolMember.Status.READY).stream().filter(m -> m.pool().equals("q")).findFirst()
                .orElseThrow().id();

        ledger.save(new PoolSettings("p", "img", 2.0, 512, List.of(), "local", 1, 1), "api");
        ledger.delete("q");
        keeper.tend();

        assertTrue(backend.calls().contains("remove dockyard-" + ofP), "redefined: drained");
        assertTrue(backend.calls().contains("remove dockyard-" + ofQ), "deleted: drained");
        List<PoolMember> now = ledger.members(config.instance);
        assertEquals(1, now.size());
        assertEquals("p", now.get(0).pool());
        assertTrue(now.get(0).shape().contains("|2.000|"), now.get(0).shape());
    }

    /** Pools declared as the API and configuration do, through {@link WarmPools#declare} and its checks. */
    private void declaring() {
        pools.config = new TestConfig() {
            @Override
            public double maxCpus() {
                return 8;
            }

            @Override
            public int maxMemoryMb() {
                return 16384;
            }

            @Override
            public int poolMaxSize() {
                return 100;
            }
        };
    }

    @Test
    void shouldKeepAPoolThatNamesNoServerOnItsNodesAndServeOnlyRequestsOfIt() {
        declaring();
        nodes.executorServer("local", ExecutorServer.LIBERTY);
        pools.declare(new PoolSettings("p", "img", 1.0, 512, List.of(), "local", 1, 1), "api");
        keeper.tend();

        assertEquals(Optional.of(ExecutorServer.LIBERTY), ledger.definition("p").orElseThrow().executorServer());
        assertEquals(List.of(ExecutorServer.LIBERTY), backend.createdSpecs().stream().map(SandboxSpec::executorServer)
                .toList());
        assertEquals(1, members(PoolMember.Status.READY).size());
        assertEquals(Optional.of("p"), pools.match("img", 1.0, 512, List.of(), "local", null, ExecutorServer.LIBERTY));
        assertEquals(Optional.empty(), pools.match("img", 1.0, 512, List.of(), "local", null,
                ExecutorServer.EMBEDDED), "an embedded request never gets a Liberty member");
    }

    @Test
    void shouldDrainTheMembersOfTheOtherServerWhenAPoolChangesItsServer() {
        // saved without a server, as pools declared before the choice: the default one
        declaring();
        define("p", 1, 1);
        keeper.tend();
        assertEquals(Optional.of(ExecutorServer.EMBEDDED), ledger.definition("p").orElseThrow().executorServer());
        String embedded = members(PoolMember.Status.READY).get(0).id();

        pools.declare(new PoolSettings("p", "img", 1.0, 512, List.of(), "local", 1, 1, null, ExecutorServer.LIBERTY),
                "api");
        keeper.tend();

        assertTrue(backend.calls().contains("remove dockyard-" + embedded), "another server: drained");
        List<PoolMember> now = members(PoolMember.Status.READY);
        assertEquals(1, now.size());
        assertTrue(now.get(0).shape().endsWith("|executor:liberty"), now.get(0).shape());
        assertEquals(ExecutorServer.LIBERTY, backend.createdSpecs().get(1).executorServer());
        assertEquals(Optional.empty(), pools.match("img", 1.0, 512, List.of(), "local", null, ExecutorServer.EMBEDDED));
    }

    @Test
    void shouldRefuseAnExecutorServerForAPoolOfAnotherImagesProgram() {
        declaring();
        PoolProgram program = new PoolProgram(List.of("serve"), null, null, Map.of());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> pools.declare(
                new PoolSettings("d", "agent:1", 1.0, 512, List.of(), "local", 1, 1, program, ExecutorServer.LIBERTY),
                "api"));
        assertTrue(refused.getMessage().contains("sandbox.executorServer"), refused.getMessage());

        pools.declare(new PoolSettings("d", "agent:1", 1.0, 512, List.of(), "local", 0, 1, program, null), "api");
        assertEquals(Optional.empty(), ledger.definition("d").orElseThrow().executorServer(), "it runs no executor");
    }

    @Test
    void shouldDoNothingWhenTheNodeCannotBeListed() {
        define("p", 2, 2);
        keeper.tend();
        int calls = backend.calls().size();
        backend.unlistable();

        keeper.tend();

        assertEquals(2, members(PoolMember.Status.READY).size());
        assertTrue(backend.calls().subList(calls, backend.calls().size()).stream().noneMatch(c -> c.startsWith("remove")
                || c.startsWith("create")), backend.calls().toString());
    }

    @Test
    void shouldDropABootInterruptedByARestartOnlyAfterTheGrace() {
        define("p", 0, 1);
        PoolMember orphan = new PoolMember("rt-interrupted", "p", "local", config.instance, "img|1.000|512||local|executor:embedded",
                "key", clock.instant());
        ledger.booting(orphan);
        backend.put(orphan.containerName(), orphan.id(), clock.instant(), SandboxState.Phase.CREATED);

        keeper.tend();
        assertEquals(1, ledger.members(config.instance).size(), "within the grace it may still be another's boot");

        clock.advance(config.reconcilerGrace.plusSeconds(1));
        keeper.tend();
        assertTrue(ledger.members(config.instance).isEmpty());
        assertTrue(backend.calls().contains("remove " + orphan.containerName()));
    }

    @Test
    void shouldRemoveASandboxWhoseMemberWasDrainedWhileItBooted() {
        define("p", 1, 1);
        runAtOnce = false;
        keeper.tend();
        PoolMember booting = members(PoolMember.Status.BOOTING).get(0);
        ledger.delete("p");
        ledger.drop(booting.id(), null);

        queued.forEach(Runnable::run);

        assertTrue(ledger.members(config.instance).isEmpty());
        assertTrue(backend.calls().contains("remove " + booting.containerName()));
        assertTrue(pools.next("p").isEmpty());
    }

    @Test
    void shouldBootNoMoreMembersThanTheNodesMemoryHoldsAndSayWhy() {
        capacities.put("local", new NodeCapacity(null, 1100));
        define("p", 3, 3);

        keeper.tend();
        keeper.tend();

        assertEquals(2, ledger.members(config.instance).size(), "two members of 512 MB fit in 1100 MB, three do not");
        assertTrue(keeper.lastError("p").contains("room for 0 more warm member(s) of 512 MB"), keeper.lastError("p"));
        capacities.put("local", new NodeCapacity(null, 2048));
        keeper.tend();
        assertEquals(3, members(PoolMember.Status.READY).size(), "refilled once the node has room");
    }

    @Test
    void shouldBackOffAfterAFailedBootAndSayWhy() {
        define("p", 1, 1);
        bootFailure = new BackendException("image 'img' not found", null);

        keeper.tend();
        assertTrue(ledger.members(config.instance).isEmpty(), "a failed member leaves no row");
        assertNotNull(keeper.lastError("p"));
        assertTrue(keeper.lastError("p").contains("not found"));
        int creates = (int) backend.calls().stream().filter(c -> c.startsWith("create")).count();

        keeper.tend();
        assertEquals(creates, backend.calls().stream().filter(c -> c.startsWith("create")).count(),
                "no new boot within the back-off");

        bootFailure = null;
        clock.advance(Duration.ofSeconds(16));
        keeper.tend();
        assertEquals(1, members(PoolMember.Status.READY).size());
        assertEquals(null, keeper.lastError("p"));
    }

    /** The ledger's transactions over maps. */
    static class MemoryLedger extends PoolLedger {

        private final Map<String, PoolDefinition> definitions = new LinkedHashMap<>();
        private final Map<String, PoolMember> members = new LinkedHashMap<>();

        @Override
        public synchronized List<PoolDefinition> definitions() {
            return new ArrayList<>(definitions.values());
        }

        @Override
        public synchronized Optional<PoolDefinition> definition(String name) {
            return Optional.ofNullable(definitions.get(name));
        }

        @Override
        public synchronized boolean save(PoolSettings s, String source) {
            PoolDefinition existing = definitions.get(s.name());
            if (existing != null) {
                existing.redefine(s, source, clock.instant());
                return false;
            }
            definitions.put(s.name(), new PoolDefinition(s, source, clock.instant()));
            return true;
        }

        @Override
        public synchronized boolean delete(String name) {
            return definitions.remove(name) != null;
        }

        @Override
        public synchronized List<PoolMember> members(String controlPlane) {
            return members.values().stream().filter(m -> m.controlPlane().equals(controlPlane)).toList();
        }

        @Override
        public synchronized void booting(PoolMember member) {
            members.put(member.id(), member);
        }

        @Override
        public synchronized boolean ready(String id, String containerId, String executorUrl, String runtimeImage,
                                          String imageId) {
            PoolMember member = members.get(id);
            if (member != null) {
                member.ready(containerId, executorUrl, runtimeImage, imageId, clock.instant());
            }
            return member != null;
        }

        @Override
        public synchronized boolean drop(String id, PoolMember.Status expected) {
            PoolMember member = members.get(id);
            if (member == null || (expected != null && member.status() != expected)) {
                return false;
            }
            members.remove(id);
            return true;
        }

        @Override
        public synchronized Map<String, Long> memoryByNode() {
            Map<String, Long> memory = new HashMap<>();
            members.values().forEach(m -> memory.merge(m.node(),
                    (long) definitions.get(m.pool()).memoryMb(), Long::sum));
            return memory;
        }

        @Override
        public long claimedLive(String pool) {
            return 0;
        }
    }
}
