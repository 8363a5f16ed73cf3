package dev.dockyard.runtime.reconciliation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.runtime.provisioning.Provisioner;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reconciler's decisions, on a fake backend and an in-memory table, with a clock moved by hand. */
class ReconcilerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final FakeNodes nodes = new FakeNodes("local");
    private final FakeBackend backend = nodes.backend("local");
    private final TestConfig config = new TestConfig();
    private final Set<URI> answering = ConcurrentHashMap.newKeySet();
    private final Set<String> inFlight = new HashSet<>();
    private final Reconciler reconciler = new Reconciler();

    @BeforeEach
    void wire() {
        reconciler.nodes = nodes;
        reconciler.pools = NoPools.keeper();
        reconciler.journal = Journals.over(runtimes, clock, new RuntimeSecrets());
        reconciler.config = config;
        reconciler.clock = clock;
        reconciler.health = Placements.health(reconciler.nodes, clock);
        reconciler.gates = new RuntimeGates();
        reconciler.leases = new Leases(new FakeLeaseStore(), clock, ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        reconciler.secrets = new RuntimeSecrets();
        reconciler.provisioner = new Provisioner() {
            @Override
            public boolean isInFlight(String runtimeId) {
                return inFlight.contains(runtimeId);
            }
        };
        reconciler.executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                return answering.contains(executor);
            }
        };
    }

    private SandboxRuntime runtime(RuntimeStatus... path) {
        SandboxRuntime runtime = new SandboxRuntime("conv-" + runtimes.live().size(), "alice", "fake", "img", 1.0, 512,
                60, clock.instant());
        runtime.assignNode("local");
        runtime.ownedBy(config.instance);
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        for (RuntimeStatus next : path) {
            runtimes.record(runtime.transitionTo(next, "test", clock.instant()));
        }
        return runtime;
    }

    private SandboxRuntime ready() {
        SandboxRuntime runtime = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);
        return runtime;
    }

    private RuntimeStatus statusOf(SandboxRuntime runtime) {
        return runtimes.find(runtime.id()).orElseThrow().status();
    }

    @Test
    void shouldNotTakeAFrozenSandboxForAStoppedOne() {
        // a pause freezes the sandbox before it records PAUSED: the pass in between sees READY + frozen
        SandboxRuntime runtime = ready();
        backend.pause(runtime.containerName());

        Reconciler.Report report = reconciler.pass();

        assertEquals(RuntimeStatus.READY, statusOf(runtime));
        assertEquals(0, report.disconnected());
    }

    @Test
    void shouldRecordARuntimeFrozenWhileReadyForOverAMinuteAsAsleep() {
        // the control plane was killed between a pause's freeze and its record (the soak's hung
        // runtime, 2026-11-30): every action waited out its timeout on a frozen executor
        SandboxRuntime runtime = ready();
        backend.pause(runtime.containerName());

        reconciler.pass();
        clock.advance(Duration.ofSeconds(45));
        reconciler.pass();
        assertEquals(RuntimeStatus.READY, statusOf(runtime), "a freeze under a minute may be a pause at work");

        clock.advance(Duration.ofSeconds(20));
        reconciler.pass();

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.PAUSED, now.status());
        assertEquals(PauseReason.IDLE, now.pauseReason(), "asleep: the next action resumes it");
        assertTrue(now.statusMessage().startsWith("Found frozen while READY"), now.statusMessage());
    }

    @Test
    void shouldRecordAFrozenReadyRuntimeAsAsleepWhileItsActionsHang() {
        // an action in flight holds the gate: it is the one waiting on the frozen executor
        SandboxRuntime runtime = ready();
        backend.pause(runtime.containerName());
        reconciler.pass();
        clock.advance(Duration.ofSeconds(61));

        try (RuntimeGates.Pass hanging = reconciler.gates.enterAction(runtime.id())) {
            reconciler.pass();
        }

        assertEquals(RuntimeStatus.PAUSED, statusOf(runtime));
    }

    @Test
    void shouldLeaveARuntimeFrozenByANodeThatPausesOnItsOwnReady() {
        // a remote control plane's idle lifecycle paused it there: READY here by design, its next
        // action resumes it there
        backend.pausingOnItsOwn();
        SandboxRuntime runtime = ready();
        backend.pause(runtime.containerName());

        reconciler.pass();
        clock.advance(Duration.ofSeconds(90));
        reconciler.pass();

        assertEquals(RuntimeStatus.READY, statusOf(runtime));
    }

    @Test
    void shouldFreezeAgainARuntimeRecordedPausedWhoseSandboxRunsForOverAMinute() {
        // a pause whose answer was lost before the engine froze anything was recorded PAUSED
        // (2026-12-01): the sandbox ran on, spending what the pause was to save
        SandboxRuntime runtime = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);

        for (int pass = 0; pass < 4; pass++) {
            reconciler.pass();
            clock.advance(Duration.ofSeconds(15));
        }
        assertEquals(Phase.RUNNING, backend.inspect(runtime.containerName()).phase(),
                "running under a minute may be a resume at work");

        clock.advance(Duration.ofSeconds(5));
        try (RuntimeGates.Pass resuming = reconciler.gates.enterLifecycle(runtime.id())) {
            reconciler.pass();
        }
        assertEquals(Phase.RUNNING, backend.inspect(runtime.containerName()).phase(), "a resume holds it");

        reconciler.pass();

        assertEquals(Phase.PAUSED, backend.inspect(runtime.containerName()).phase(), "frozen, as it is recorded");
        assertEquals(RuntimeStatus.PAUSED, statusOf(runtime));
    }

    /**
     * Sightings a pass apart only: one seen a while ago (the lease held by another process since, or
     * the node skipped) and again now may have been resumed in between; a node that cannot freeze
     * (Kubernetes) hibernates its paused runtimes, so a running sandbox there is none of this.
     */
    @Test
    void shouldCountAPausedRuntimesRunningSandboxOnlyOverPassesOneAfterAnotherAndOnlyWhereItFreezes() {
        SandboxRuntime runtime = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);

        reconciler.pass();
        clock.advance(Duration.ofSeconds(65));
        reconciler.pass();
        assertEquals(Phase.RUNNING, backend.inspect(runtime.containerName()).phase(),
                "seen 65 s ago and now, with no pass in between: counted from now");

        clock.advance(Duration.ofSeconds(20));
        reconciler.pass();
        clock.advance(Duration.ofSeconds(20));
        reconciler.pass();
        clock.advance(Duration.ofSeconds(25));
        reconciler.pass();
        assertEquals(Phase.PAUSED, backend.inspect(runtime.containerName()).phase(), "65 s over passes 20-25 s apart");
    }

    @Test
    void shouldNotFreezeAgainWhereTheNodeCannotFreeze() {
        backend.withoutFreezer();
        SandboxRuntime runtime = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);

        for (int pass = 0; pass < 8; pass++) {
            reconciler.pass();
            clock.advance(Duration.ofSeconds(10));
        }

        assertFalse(backend.calls().contains("pause " + runtime.containerName()), backend.calls().toString());
    }

    @Test
    void shouldLeaveAFrozenReadyRuntimeAloneWhileSomethingHoldsItOrOnceItThawed() {
        SandboxRuntime snapshotted = ready();
        SandboxRuntime thawed = ready();
        backend.pause(snapshotted.containerName());
        backend.pause(thawed.containerName());
        reconciler.pass();
        // a thaw between two passes starts the minute again
        backend.unpause(thawed.containerName());
        clock.advance(Duration.ofSeconds(30));
        reconciler.pass();
        backend.pause(thawed.containerName());
        clock.advance(Duration.ofSeconds(40));

        try (RuntimeGates.Pass snapshot = reconciler.gates.beginMigration(snapshotted.id(), Duration.ofSeconds(1))) {
            reconciler.pass();
            assertEquals(RuntimeStatus.READY, statusOf(snapshotted), "a snapshot holds it: its freeze is at work");
        }
        assertEquals(RuntimeStatus.READY, statusOf(thawed), "frozen again 40 s ago, not 70");

        reconciler.pass();
        assertEquals(RuntimeStatus.PAUSED, statusOf(snapshotted), "held by nothing any more, and frozen for 70 s");
    }

    @Test
    void shouldNotDisconnectARuntimeThatTheListMissedWhileItsSandboxIsThere() {
        // a remote node is listed status by status: a sandbox resumed there between its PAUSED and
        // its READY list is in neither (CI's RemoteNodeIT, 2026-11-30), though it runs
        SandboxRuntime running = ready();
        SandboxRuntime frozen = ready();
        backend.pause(frozen.containerName());
        SandboxRuntime gone = ready();
        backend.remove(gone.containerName());
        backend.leaveOutOfLists(running.containerName());
        backend.leaveOutOfLists(frozen.containerName());

        Reconciler.Report report = reconciler.pass();

        assertEquals(RuntimeStatus.READY, statusOf(running));
        assertEquals(RuntimeStatus.READY, statusOf(frozen));
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(gone), "a sandbox really gone still is");
        assertEquals(1, report.disconnected());
    }

    @Test
    void shouldDisconnectARuntimeWhoseContainerStoppedEvenWhenPaused() {
        SandboxRuntime ready = ready();
        SandboxRuntime paused = ready();
        runtimes.record(paused.transitionTo(RuntimeStatus.PAUSED, "paused", clock.instant()));
        backend.put(ready.containerName(), ready.id(), clock.instant(), Phase.EXITED);
        backend.put(paused.containerName(), paused.id(), clock.instant(), Phase.EXITED);

        assertEquals(2, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(ready));
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(paused));
    }

    @Test
    void shouldLeaveAHibernatedRuntimesStoppedSandboxAloneButDisconnectItWhenItIsGone() {
        SandboxRuntime kept = ready();
        SandboxRuntime gone = ready();
        for (SandboxRuntime runtime : List.of(kept, gone)) {
            runtimes.record(runtime.transitionTo(RuntimeStatus.PAUSED, "paused", clock.instant()));
            runtimes.record(runtime.transitionTo(RuntimeStatus.HIBERNATED, "hibernated", clock.instant()));
        }
        backend.put(kept.containerName(), kept.id(), clock.instant(), Phase.EXITED);
        backend.remove(gone.containerName());
        clock.advance(Duration.ofMinutes(10));

        Reconciler.Report report = reconciler.pass();

        assertEquals(RuntimeStatus.HIBERNATED, statusOf(kept), "stopped on purpose: not a disconnection");
        assertEquals(Phase.EXITED, backend.phase(kept.containerName()), "neither removed as an orphan nor started");
        assertFalse(backend.calls().contains("revive " + kept.containerName()));
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(gone));
        assertEquals(1, report.disconnected());
        assertEquals(0, report.orphansRemoved());
    }

    @Test
    void shouldStartAStoppedSandboxAgainAndReconnectOnceItAnswers() {
        SandboxRuntime runtime = ready();
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
        reconciler.pass();
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
        // started again in the pass that disconnected it, not a pass later; its executor is not up yet
        assertTrue(backend.calls().contains("revive " + runtime.containerName()), backend.calls().toString());
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()));

        clock.advance(Duration.ofSeconds(10));
        assertEquals(0, reconciler.pass().reconnected());
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));

        URI endpoint = backend.endpoint(runtime.containerName(), 8000);
        answering.add(endpoint);
        clock.advance(Duration.ofSeconds(10));
        assertEquals(1, reconciler.pass().reconnected());
        SandboxRuntime back = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.READY, back.status());
        assertEquals(endpoint.toString(), back.executorUrl());
        assertTrue(back.statusMessage().startsWith("Reconnected"), back.statusMessage());
    }

    @Test
    void shouldStartStoppedSandboxesAgainInTurnWithTheNodesBootsAndReconnectEachAsSoonAsItServes() throws Exception {
        // an engine restart stopped three sandboxes of a node that boots one sandbox at a time: started
        // all at once, their executors would starve one another and the provisions in line (soak 02:13)
        config.maxConcurrentBoots = 1;
        BootTurns turns = Placements.turns(config);
        ExecutorService threads = Executors.newCachedThreadPool();
        reconciler.revivals = new SandboxRevivals(turns, threads, Duration.ofSeconds(30));
        try {
            List<SandboxRuntime> stopped = stoppedByTheEngine(3);

            assertEquals(3, reconciler.pass().disconnected());
            assertTrue(eventually(() -> revived().size() == 1), backend.calls().toString());
            Thread.sleep(300);
            assertEquals(1, revived().size(), "the others wait for the first one's turn: " + backend.calls());
            assertEquals(1, turns.booting("local"));

            // a pass meanwhile starts none of them twice
            reconciler.pass();
            assertEquals(1, revived().size(), backend.calls().toString());

            // the first serves: reconnected at once, without a pass, and its turn goes to the next one
            String first = revived().get(0);
            SandboxRuntime firstRuntime = stopped.stream().filter(r -> r.containerName().equals(first)).findFirst()
                    .orElseThrow();
            answering.add(backend.endpoint(first, 8000));
            assertTrue(eventually(() -> statusOf(firstRuntime) == RuntimeStatus.READY), statusOf(firstRuntime).name());
            assertTrue(eventually(() -> revived().size() == 2), backend.calls().toString());

            stopped.forEach(r -> answering.add(backend.endpoint(r.containerName(), 8000)));
            assertTrue(eventually(() -> stopped.stream().allMatch(r -> statusOf(r) == RuntimeStatus.READY)),
                    stopped.stream().map(r -> statusOf(r).name()).toList().toString());
            assertTrue(eventually(() -> turns.booting("local") == 0));
            assertEquals(3, revived().size(), "each started once: " + backend.calls());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldGiveTheBootTurnOnOnceARevivedRuntimeNoLongerWaitsForItsSandbox() throws Exception {
        config.maxConcurrentBoots = 1;
        ExecutorService threads = Executors.newCachedThreadPool();
        reconciler.revivals = new SandboxRevivals(Placements.turns(config), threads, Duration.ofSeconds(30));
        try {
            List<SandboxRuntime> stopped = stoppedByTheEngine(2);
            assertEquals(2, reconciler.pass().disconnected());
            assertTrue(eventually(() -> revived().size() == 1), backend.calls().toString());

            // the first one's sandbox never answers, but its runtime is deleted meanwhile: the other one
            // gets the turn at once, not when the first one's 30 s are over
            String first = revived().get(0);
            SandboxRuntime deleted = runtimes.find(stopped.stream().filter(r -> r.containerName().equals(first))
                    .findFirst().orElseThrow().id()).orElseThrow();
            runtimes.record(deleted.transitionTo(RuntimeStatus.STOPPED, "Deleted", clock.instant()));
            assertTrue(eventually(() -> revived().size() == 2), backend.calls().toString());
        } finally {
            threads.shutdownNow();
        }
    }

    /** {@code n} READY runtimes whose sandboxes an engine's restart stopped. */
    private List<SandboxRuntime> stoppedByTheEngine(int n) {
        List<SandboxRuntime> stopped = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SandboxRuntime runtime = ready();
            backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
            stopped.add(runtime);
        }
        return stopped;
    }

    /** The sandboxes started again so far, in order. */
    private List<String> revived() {
        return backend.calls().stream().filter(c -> c.startsWith("revive ")).map(c -> c.substring(7)).toList();
    }

    /** Whether {@code condition} holds within 5 s. */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    @Test
    void shouldReconnectAsPausedWhenTheSandboxIsFrozen() {
        SandboxRuntime runtime = ready();
        runtimes.record(runtime.transitionTo(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, "lost", clock.instant()));
        backend.pause(runtime.containerName());

        assertEquals(1, reconciler.pass().reconnected());
        assertEquals(RuntimeStatus.PAUSED, statusOf(runtime));
    }

    @Test
    void shouldReleaseADisconnectedRuntimeAfterTheGraceAndRemoveItsSandbox() {
        SandboxRuntime runtime = ready();
        // it stopped; started again by the next pass, it never answers: released after the grace
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
        reconciler.pass();
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));

        clock.advance(config.disconnectedGrace.minusSeconds(1));
        assertEquals(0, reconciler.pass().released());
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()), "started again, but it never answers");

        clock.advance(Duration.ofSeconds(2));
        Reconciler.Report report = reconciler.pass();
        assertEquals(1, report.released());
        assertEquals(0, report.orphansRemoved(), "its sandbox is removed once, as part of the release");
        SandboxRuntime released = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.ERROR, released.status());
        assertFalse(released.status().isLive(), "the conversation and the quota are free again");
        assertTrue(released.statusMessage().startsWith("Released after 300 s disconnected"), released.statusMessage());
        assertEquals(Phase.MISSING, backend.phase(runtime.containerName()));
        assertTrue(runtimes.findLive("alice", runtime.conversationId()).isEmpty());
    }

    @Test
    void shouldCountTheGraceFromWhenTheStoppedSandboxWasLastStartedAgain() {
        // the engine restarted: the first start failed, the next came 200 s later and its executor
        // boots for minutes under load. Released 300 s after the disconnection, its workspace and the
        // writes acknowledged in it would go (soak 2026-12-02 16:25)
        SandboxRuntime runtime = ready();
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
        backend.reviveFailing(new BackendException("the engine does not answer", null));
        reconciler.pass();
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
        assertEquals(Phase.EXITED, backend.phase(runtime.containerName()));

        backend.reviveFailing(null);
        clock.advance(Duration.ofSeconds(200));
        reconciler.pass();
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()), "started again at 200 s");
        String message = runtimes.find(runtime.id()).orElseThrow().statusMessage();
        assertTrue(message.contains("its container stopped, and was started again")
                && message.contains("released 300 s after that start"), message);

        clock.advance(Duration.ofSeconds(150));
        assertEquals(0, reconciler.pass().released(), "350 s after the disconnection, 150 s after its start");
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));

        clock.advance(Duration.ofSeconds(151));
        assertEquals(1, reconciler.pass().released(), "301 s after its start and still not answering");
        assertEquals(RuntimeStatus.ERROR, statusOf(runtime));
    }

    /**
     * A sandbox that stops again each time it is started (its executor refuses to run): each start
     * would count the grace anew, and the runtime would hold its conversation, its quota and the
     * node's first turns to boot for good. Released twice the grace after its disconnection.
     */
    @Test
    void shouldReleaseARuntimeWhoseSandboxKeepsStoppingTwiceTheGraceAfterItsDisconnection() {
        SandboxRuntime runtime = ready();
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
        reconciler.pass();
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
        int released = 0;
        for (int minute = 1; minute <= 9; minute++) {
            clock.advance(Duration.ofSeconds(59));
            backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.EXITED);
            released += reconciler.pass().released();
        }
        assertEquals(0, released, "531 s after the disconnection, started again a minute ago");
        assertEquals(10, revived().size(), "started again at each pass that found it stopped: " + backend.calls());

        clock.advance(Duration.ofSeconds(70));
        assertEquals(1, reconciler.pass().released(), "601 s after the disconnection");
        assertEquals(RuntimeStatus.ERROR, statusOf(runtime));
    }

    /**
     * An engine that refuses every start: the revival gives its turn back at once rather than
     * holding it for nothing, so it is not under way when the grace is over, and the runtime is
     * released then, as before revivals took turns.
     */
    @Test
    void shouldReleaseARuntimeWhoseSandboxTheEngineRefusesToStartAfterTheGrace() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        reconciler.revivals = new SandboxRevivals(Placements.turns(config), threads, Duration.ofSeconds(30));
        try {
            backend.reviveFailing(new BackendException("the engine does not answer", null));
            SandboxRuntime runtime = stoppedByTheEngine(1).get(0);
            assertEquals(1, reconciler.pass().disconnected());
            assertTrue(eventually(() -> !reconciler.revivals.underWay(runtime.id())), "the failed start holds no turn");

            clock.advance(config.disconnectedGrace.plusSeconds(1));
            assertEquals(1, reconciler.pass().released());
            assertEquals(RuntimeStatus.ERROR, statusOf(runtime));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldNotReleaseARuntimeWhileItsRevivalWaitsForATurnToBoot() throws Exception {
        config.maxConcurrentBoots = 1;
        BootTurns turns = Placements.turns(config);
        ExecutorService threads = Executors.newCachedThreadPool();
        reconciler.revivals = new SandboxRevivals(turns, threads, Duration.ofSeconds(30));
        BootTurns.Turn other = turns.await("local", BootTurns.Line.RETURNING, Duration.ofSeconds(1));
        try {
            SandboxRuntime runtime = stoppedByTheEngine(1).get(0);
            assertEquals(1, reconciler.pass().disconnected());

            clock.advance(config.disconnectedGrace.plusSeconds(1));
            assertEquals(0, reconciler.pass().released(), "its revival waits in line: " + backend.calls());
            assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
            assertTrue(revived().isEmpty(), backend.calls().toString());

            other.close();
            answering.add(backend.endpoint(runtime.containerName(), 8000));
            assertTrue(eventually(() -> statusOf(runtime) == RuntimeStatus.READY), statusOf(runtime).name());
        } finally {
            other.close();
            threads.shutdownNow();
        }
    }

    @Test
    void shouldReleaseARuntimeWhoseSandboxIsGoneAfterTheGrace() {
        SandboxRuntime runtime = ready();
        backend.remove(runtime.containerName());
        reconciler.pass();
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));
        assertTrue(runtimes.find(runtime.id()).orElseThrow().statusMessage().contains("its container is gone"));

        clock.advance(config.disconnectedGrace.plusSeconds(1));
        assertEquals(1, reconciler.pass().released());
        assertEquals(RuntimeStatus.ERROR, statusOf(runtime));
    }

    @Test
    void shouldReleaseOnTheGraceOfTheRuntimesNodeWhereItHasOne() {
        // a node expected to be away longer than a sandbox (a remote control plane restarted)
        config.nodeDisconnectedGraces.put("local", Duration.ofSeconds(900));
        SandboxRuntime runtime = ready();
        backend.remove(runtime.containerName());
        reconciler.pass();
        assertTrue(runtimes.find(runtime.id()).orElseThrow().statusMessage().contains("released 900 s after"),
                runtimes.find(runtime.id()).orElseThrow().statusMessage());

        clock.advance(config.disconnectedGrace.plusSeconds(1));
        assertEquals(0, reconciler.pass().released(), "the node's grace, not the default, applies");
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(runtime));

        clock.advance(Duration.ofSeconds(600));
        assertEquals(1, reconciler.pass().released());
        assertTrue(runtimes.find(runtime.id()).orElseThrow().statusMessage().startsWith("Released after 900 s"));
    }

    @Test
    void shouldLeaveRuntimesOfAnotherControlPlaneAlone() {
        SandboxRuntime theirs = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        theirs.ownedBy("other-instance");
        // its sandbox is labelled for the other instance: this one's listing does not show it

        reconciler.pass();

        assertEquals(RuntimeStatus.READY, statusOf(theirs));
    }

    @Test
    void shouldDoNothingWhenTheViewIsIncomplete() {
        SandboxRuntime runtime = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        backend.unlistable();

        Reconciler.Report report = reconciler.pass();

        assertTrue(report.skipped());
        assertEquals(RuntimeStatus.READY, statusOf(runtime));
        assertEquals(List.of("list"), backend.calls());
    }

    @Test
    void shouldRemoveAnOrphanOnlyAfterTheGrace() {
        backend.put("dockyard-rt-gone", "rt-gone", clock.instant(), Phase.RUNNING);

        assertEquals(0, reconciler.pass().orphansRemoved());
        clock.advance(config.reconcilerGrace.plusSeconds(1));
        assertEquals(1, reconciler.pass().orphansRemoved());
        assertEquals(Phase.MISSING, backend.phase("dockyard-rt-gone"));
    }

    /**
     * A container a replacement set aside (the old one it could not remove) carries the sandbox's
     * labels, but the backend lists it as nobody's: it is removed, and the runtime's own sandbox,
     * READY beside it, is left alone.
     */
    @Test
    void shouldRemoveAContainerListedAsNobodysAndLeaveTheRuntimesOwn() {
        SandboxRuntime runtime = ready();
        backend.put(runtime.containerName() + "-replaced-166834d70fa7", null, clock.instant(), Phase.EXITED);
        clock.advance(config.reconcilerGrace.plusSeconds(1));

        assertEquals(1, reconciler.pass().orphansRemoved());

        assertEquals(Phase.MISSING, backend.phase(runtime.containerName() + "-replaced-166834d70fa7"));
        assertEquals(Phase.RUNNING, backend.phase(runtime.containerName()));
        assertEquals(RuntimeStatus.READY, statusOf(runtime));
    }

    /**
     * The pass reads the live runtimes once, then lists each node: a runtime registered in between
     * (through another control plane, while this pass started stopped sandboxes for longer than
     * the grace) is looked up again before its sandbox is taken for an orphan. The soak's engine
     * restart, 2026-11-30: a READY E2B sandbox on node2 removed under its agent.
     */
    @Test
    void shouldLookAgainBeforeTakingTheSandboxOfARuntimeRegisteredDuringThePassForAnOrphan() {
        Set<String> registeredSinceTheRead = new HashSet<>();
        FakeRuntimes table = new FakeRuntimes() {
            @Override
            public synchronized List<SandboxRuntime> live() {
                return super.live().stream().filter(r -> !registeredSinceTheRead.contains(r.id())).toList();
            }
        };
        reconciler.journal = Journals.over(table, clock, new RuntimeSecrets());
        SandboxRuntime late = new SandboxRuntime("conv-late", "alice", "fake", "img", 1.0, 512, 60, clock.instant());
        late.assignNode("local");
        late.ownedBy(config.instance);
        table.add(late, new StatusChange(late.id(), late.status(), "requested", clock.instant()));
        table.record(late.transitionTo(RuntimeStatus.RUNTIME_STARTED, "test", clock.instant()));
        table.record(late.transitionTo(RuntimeStatus.READY, "test", clock.instant()));
        backend.put(late.containerName(), late.id(), clock.instant(), Phase.RUNNING);
        registeredSinceTheRead.add(late.id());
        backend.put("dockyard-rt-gone", "rt-gone", clock.instant(), Phase.RUNNING);
        clock.advance(config.reconcilerGrace.plusSeconds(1));

        Reconciler.Report report = reconciler.pass();

        assertEquals(Phase.RUNNING, backend.phase(late.containerName()), "the live runtime's sandbox is kept");
        assertEquals(1, report.orphansRemoved(), "a true orphan still goes");
        assertEquals(Phase.MISSING, backend.phase("dockyard-rt-gone"));
    }

    @Test
    void shouldFailAnInterruptedProvisioningButNotOneInFlight() {
        SandboxRuntime interrupted = runtime(RuntimeStatus.RUNTIME_STARTED);
        backend.put(interrupted.containerName(), interrupted.id(), clock.instant(), Phase.RUNNING);
        SandboxRuntime working = runtime(RuntimeStatus.RUNTIME_STARTED);
        backend.put(working.containerName(), working.id(), clock.instant(), Phase.RUNNING);
        inFlight.add(working.id());
        clock.advance(config.reconcilerGrace.plusSeconds(1));

        Reconciler.Report report = reconciler.pass();
        assertEquals(1, report.interruptedFailed());
        assertEquals(0, report.orphansRemoved());
        assertEquals(RuntimeStatus.ERROR, statusOf(interrupted));
        assertEquals(Phase.MISSING, backend.phase(interrupted.containerName()));
        assertEquals(RuntimeStatus.RUNTIME_STARTED, statusOf(working));
        assertEquals(Phase.RUNNING, backend.phase(working.containerName()));
    }

    @Test
    void shouldLeaveAProvisionOfALiveInstanceAloneAndFailItOnceThatInstanceIsDead() {
        FakeLeaseStore store = new FakeLeaseStore();
        reconciler.leases = new Leases(store, clock, ControlPlaneInstance.of("survivor", Duration.ofSeconds(30)));
        Leases other = new Leases(store, clock, ControlPlaneInstance.of("other", Duration.ofSeconds(30)));
        assertTrue(other.heartbeat());
        SandboxRuntime theirs = runtime(RuntimeStatus.RUNTIME_STARTED);
        theirs.provisionedBy(other.me());
        backend.put(theirs.containerName(), theirs.id(), clock.instant(), Phase.RUNNING);
        clock.advance(config.reconcilerGrace.plusSeconds(1));
        other.heartbeat();

        assertEquals(0, reconciler.pass().interruptedFailed(), "its provisioner lives: still in flight");
        assertEquals(RuntimeStatus.RUNTIME_STARTED, statusOf(theirs));
        assertEquals(Phase.RUNNING, backend.phase(theirs.containerName()));

        // the other instance dies: its heartbeat stops and expires
        clock.advance(Duration.ofSeconds(31));
        Reconciler.Report report = reconciler.pass();
        assertEquals(1, report.interruptedFailed());
        assertEquals(RuntimeStatus.ERROR, statusOf(theirs));
        assertEquals(Phase.MISSING, backend.phase(theirs.containerName()));
    }

    /**
     * The other instance killed mid-provisioning and restarted under its fixed id: its restart
     * heartbeats, its killed process does not, and the provision is failed once that one's
     * heartbeat expired (the soak, 2026-11-30: it stayed RUNTIME_STARTED while the instance lived again).
     */
    @Test
    void shouldFailAProvisionOfAnotherInstancesKilledProcessThoughItRestartedUnderItsId() {
        FakeLeaseStore store = new FakeLeaseStore();
        reconciler.leases = new Leases(store, clock, ControlPlaneInstance.of("survivor", Duration.ofSeconds(30)));
        Leases killed = new Leases(store, clock, ControlPlaneInstance.of("other", "1", Duration.ofSeconds(30)));
        assertTrue(killed.heartbeat());
        SandboxRuntime theirs = runtime(RuntimeStatus.RUNTIME_STARTED);
        theirs.provisionedBy(killed.me());
        backend.put(theirs.containerName(), theirs.id(), clock.instant(), Phase.RUNNING);
        Leases restarted = new Leases(store, clock, ControlPlaneInstance.of("other", "2", Duration.ofSeconds(30)));
        assertTrue(restarted.heartbeat());

        clock.advance(Duration.ofSeconds(31));
        restarted.heartbeat();
        Reconciler.Report report = reconciler.pass();

        assertEquals(1, report.interruptedFailed());
        assertEquals(RuntimeStatus.ERROR, statusOf(theirs));
    }

    @Test
    void shouldFailItsOwnEarlierSelfsProvisionAfterARestartUnderTheSameId() {
        SandboxRuntime mine = runtime();
        mine.provisionedBy("test");
        backend.put(mine.containerName(), mine.id(), clock.instant(), Phase.RUNNING);
        clock.advance(config.reconcilerGrace.plusSeconds(1));

        assertEquals(1, reconciler.pass().interruptedFailed(), "same id, not in flight here: interrupted");
        assertEquals(RuntimeStatus.ERROR, statusOf(mine));
    }

    @Test
    void shouldStopAPassWhenItMayNoLongerAct() {
        SandboxRuntime interrupted = runtime(RuntimeStatus.RUNTIME_STARTED);
        backend.put(interrupted.containerName(), interrupted.id(), clock.instant(), Phase.RUNNING);
        backend.put("dockyard-orphan", "rt-orphan", clock.instant(), Phase.RUNNING);
        clock.advance(config.reconcilerGrace.plusSeconds(1));

        Reconciler.Report report = reconciler.pass(() -> false);
        assertTrue(report.skipped());
        assertEquals(RuntimeStatus.RUNTIME_STARTED, statusOf(interrupted));
        assertEquals(Phase.RUNNING, backend.phase(interrupted.containerName()));
        assertEquals(Phase.RUNNING, backend.phase("dockyard-orphan"));
    }
}
