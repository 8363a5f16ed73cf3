package dev.dockyard.runtime.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The idle sweep's decisions and their effects, with a clock the test moves. */
class IdleLifecycleTest {

    private final Lifecycles l = new Lifecycles();

    private void after(int seconds) {
        l.clock.advance(Duration.ofSeconds(seconds));
    }

    @Test
    void shouldPauseReadyRuntimeUntouchedForItsIdleTimeout() {
        SandboxRuntime runtime = l.ready(false, 60, 0);

        after(59);
        assertEquals(0, l.idle.sweep().paused());
        assertEquals(RuntimeStatus.READY, l.find(runtime.id()).status());

        after(2);
        assertEquals(1, l.idle.sweep().paused());
        SandboxRuntime paused = l.find(runtime.id());
        assertEquals(RuntimeStatus.PAUSED, paused.status());
        assertEquals(PauseReason.IDLE, paused.pauseReason());
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()), "the sandbox is frozen");
        assertTrue(paused.statusMessage().startsWith("Idle for 61 s (idle timeout 60 s): paused in "),
                paused.statusMessage());
        assertTrue(l.activity.isAsleep(runtime.id()));
    }

    @Test
    void shouldCountEveryTouchAsActivity() {
        SandboxRuntime runtime = l.ready(false, 60, 0);

        after(50);
        l.activity.touch(runtime.id());
        after(11);
        l.idle.sweep();
        assertEquals(RuntimeStatus.READY, l.find(runtime.id()).status(), "touched 11 s ago");

        after(50);
        l.idle.sweep();
        assertEquals(RuntimeStatus.PAUSED, l.find(runtime.id()).status());
    }

    @Test
    void shouldNeverPauseARuntimeWhileAnActionRunsInIt() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        RuntimeGates.Pass action = l.gates.enterAction(runtime.id());

        after(600);
        assertEquals(0, l.idle.sweep().paused());
        assertEquals(RuntimeStatus.READY, l.find(runtime.id()).status());
        assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));

        action.close();
        l.idle.sweep();
        assertEquals(RuntimeStatus.PAUSED, l.find(runtime.id()).status(), "paused once the action has ended");
    }

    @Test
    void shouldNeverPauseOrHibernateAKeepAliveRuntime() {
        l.config.hibernateAfter = Duration.ofSeconds(10);
        SandboxRuntime idle = l.ready(true, 60, 0);
        SandboxRuntime paused = l.ready(true, 60, 0);
        l.pauses.pause(paused.id());

        after(100_000);
        IdleLifecycle.Report report = l.idle.sweep();

        assertEquals(new IdleLifecycle.Report(0, 0, 0), report);
        assertEquals(RuntimeStatus.READY, l.find(idle.id()).status());
        assertEquals(RuntimeStatus.PAUSED, l.find(paused.id()).status());
        assertEquals(Phase.PAUSED, l.backend.phase(paused.containerName()), "frozen, not stopped");
    }

    @Test
    void shouldStopARuntimeWhenItsTtlIsReachedEvenKeptAlive() {
        SandboxRuntime runtime = l.ready(true, 0, 300);

        after(299);
        l.activity.touch(runtime.id());
        assertEquals(0, l.idle.sweep().stopped());

        after(1);
        assertEquals(1, l.idle.sweep().stopped());
        SandboxRuntime stopped = l.find(runtime.id());
        assertEquals(RuntimeStatus.STOPPED, stopped.status());
        assertTrue(stopped.statusMessage().startsWith("Stopped: TTL of 300 s reached"), stopped.statusMessage());
        assertEquals(Phase.MISSING, l.backend.phase(runtime.containerName()), "its sandbox is removed");
    }

    @Test
    void shouldHibernateARuntimePausedLongerThanHibernateAfter() {
        l.config.hibernateAfter = Duration.ofSeconds(600);
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        assertEquals(RuntimeStatus.PAUSED, l.find(runtime.id()).status());

        after(599);
        assertEquals(0, l.idle.sweep().hibernated());
        after(1);
        assertEquals(1, l.idle.sweep().hibernated());

        SandboxRuntime hibernated = l.find(runtime.id());
        assertEquals(RuntimeStatus.HIBERNATED, hibernated.status());
        assertTrue(hibernated.statusMessage().startsWith("Hibernated after 600 s paused"), hibernated.statusMessage());
        assertEquals(Phase.EXITED, l.backend.phase(runtime.containerName()), "stopped, the container kept");
        assertEquals(PauseReason.IDLE, hibernated.pauseReason(), "still asleep for idleness");
    }

    @Test
    void shouldResumeAnIdlePausedRuntimeForTheNextAction() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();

        after(30);
        SandboxRuntime woken = l.idle.wakeForAction(runtime.id());

        assertEquals(RuntimeStatus.READY, woken.status());
        assertTrue(woken.statusMessage().startsWith("Woken by an action after 30 s paused for idleness: resumed in "),
                woken.statusMessage());
        assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));
        assertTrue(!l.activity.isAsleep(runtime.id()));
        assertEquals(l.clock.instant(), l.activity.lastActive(woken), "waking is activity: not paused again at once");
    }

    @Test
    void shouldAnswerAnAsleepRuntimeAsItIsWhenItWasDisconnectedAsTheActionWokeIt() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        ProvisioningJournal journal = l.pauses.journal;
        // the reconciler disconnects it (its engine restarted) after the action found it asleep, before
        // the resume reads it again
        l.pauses.journal = new ProvisioningJournal() {
            private boolean disconnected;

            @Override
            public Optional<SandboxRuntime> find(String id) {
                if (!disconnected) {
                    disconnected = true;
                    l.runtimes.record(journal.find(id).orElseThrow().transitionTo(
                            RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, "lost", l.clock.instant()));
                }
                return journal.find(id);
            }
        };

        // before: IllegalTransitionException, a 500 at the action (the soak of 2026-12-02 08:27)
        SandboxRuntime answered = l.idle.wakeForAction(runtime.id());

        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, answered.status(), "answered as it is now");
    }

    @Test
    void shouldWakeAHibernatedRuntimeByAColdBootWithItsConfigurationPushedAgain() {
        l.config.hibernateAfter = Duration.ofSeconds(10);
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        after(10);
        l.idle.sweep();
        assertEquals(RuntimeStatus.HIBERNATED, l.find(runtime.id()).status());

        after(5);
        SandboxRuntime woken = l.idle.wakeForAction(runtime.id());

        assertEquals(RuntimeStatus.READY, woken.status());
        assertTrue(woken.statusMessage().startsWith("Woken by an action after 5 s hibernated: cold boot in "),
                woken.statusMessage());
        assertTrue(l.backend.calls().contains("revive " + runtime.containerName()), l.backend.calls().toString());
        assertEquals(1, l.configured.size(), "the booted executor is configured again");
        assertEquals("kept-across-hibernation", l.configured.get(0).getValue().get("CANARY"));
        assertEquals(woken.executorUrl(), l.configured.get(0).getKey().toString());
    }

    @Test
    void shouldWakeAHibernatedRuntimeOnlyOnceTheNodeGivesItATurnToBoot() throws Exception {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        l.hibernation.hibernate(runtime.id());
        l.config.maxConcurrentBoots = 1;
        BootTurns.Turn other = l.turns.await("local", BootTurns.Line.POOL, Duration.ofSeconds(1));

        CompletableFuture<SandboxRuntime> waking = CompletableFuture.supplyAsync(() -> l.idle.wakeForAction(runtime.id()));
        Thread.sleep(300);
        assertTrue(!waking.isDone(), "no boot while another holds the node's only turn");
        assertTrue(!l.backend.calls().contains("revive " + runtime.containerName()), l.backend.calls().toString());

        other.close();
        SandboxRuntime woken = waking.get(10, TimeUnit.SECONDS);
        assertEquals(RuntimeStatus.READY, woken.status());
        assertTrue(woken.statusMessage().contains(" ms waiting for a turn to boot"), woken.statusMessage());
        assertEquals(0, l.turns.booting("local"), "the turn is given back");
    }

    @Test
    void shouldLeaveAWakeThatGetsNoTurnWithinItsLimitHibernatedAndSayWhenToComeBack() {
        l.readinessSeconds = 1;
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        l.hibernation.hibernate(runtime.id());
        l.config.maxConcurrentBoots = 1;
        try (BootTurns.Turn other = l.turns.await("local", BootTurns.Line.POOL, Duration.ofSeconds(1))) {
            PlacementRefusedException refused = assertThrows(PlacementRefusedException.class,
                    () -> l.idle.wakeForAction(runtime.id()));
            assertEquals(PlacementRefusedException.Reason.NO_CAPACITY, refused.reason());
            assertTrue(refused.retryAfterSeconds() > 0);
            assertTrue(refused.getMessage().contains("no turn to boot on node 'local' came within 1 s"),
                    refused.getMessage());
        }
        assertEquals(RuntimeStatus.HIBERNATED, l.find(runtime.id()).status(), "nothing was booted");
        assertTrue(!l.backend.calls().contains("revive " + runtime.containerName()), l.backend.calls().toString());
        assertEquals(0, l.turns.booting("local"));
        assertEquals(RuntimeStatus.READY, l.idle.wakeForAction(runtime.id()).status(), "woken once a turn is free");
    }

    @Test
    void shouldWakeAHibernatedRuntimeOnceWhenAnActionAndAResumeComeTogether() throws Exception {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        l.hibernation.hibernate(runtime.id());
        l.bootTime = Duration.ofMillis(300);

        CompletableFuture<SandboxRuntime> action =
                CompletableFuture.supplyAsync(() -> l.idle.wakeForAction(runtime.id()));
        SandboxRuntime resumed = l.pauses.resume(runtime.id());

        assertEquals(RuntimeStatus.READY, resumed.status());
        assertEquals(RuntimeStatus.READY, action.get(5, TimeUnit.SECONDS).status());
        assertEquals(1, l.backend.calls().stream().filter(c -> c.startsWith("revive ")).count(),
                "one cold boot: a second would hand the key file again after the executor consumed it");
        assertEquals(1, l.configured.size());
    }

    @Test
    void shouldNotWakeARuntimeTheUserPausedNorAfterItWasHibernated() {
        l.config.hibernateAfter = Duration.ofSeconds(10);
        SandboxRuntime runtime = l.ready(false, 60, 0);
        l.pauses.pause(runtime.id());

        assertEquals(RuntimeStatus.PAUSED, l.idle.wakeForAction(runtime.id()).status(), "explicit pause stands");
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()));

        after(10);
        l.idle.sweep();
        assertEquals(RuntimeStatus.HIBERNATED, l.find(runtime.id()).status(), "hibernated after 10 s paused");
        assertEquals(PauseReason.REQUEST, l.find(runtime.id()).pauseReason());
        assertEquals(RuntimeStatus.HIBERNATED, l.idle.wakeForAction(runtime.id()).status(), "still not woken");
        assertTrue(l.configured.isEmpty());

        SandboxRuntime resumed = l.pauses.resume(runtime.id());
        assertEquals(RuntimeStatus.READY, resumed.status(), "POST /resume wakes it");
        assertTrue(resumed.statusMessage().startsWith("Woken by POST /resume"), resumed.statusMessage());
        assertEquals(Phase.RUNNING, l.backend.phase(runtime.containerName()));
    }

    @Test
    void shouldHibernateOnRequestAndKeepThePausesReason() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();

        SandboxRuntime hibernated = l.hibernation.hibernate(runtime.id());

        assertEquals(RuntimeStatus.HIBERNATED, hibernated.status());
        assertTrue(hibernated.statusMessage().startsWith("Hibernated on request"), hibernated.statusMessage());
        assertEquals(RuntimeStatus.READY, l.idle.wakeForAction(runtime.id()).status(), "idle sleep: an action wakes it");
    }

    @Test
    void shouldTakeAnExplicitPauseOfAnIdlePausedRuntimeAsTheUsersOwn() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        after(60);
        l.idle.sweep();
        assertEquals(PauseReason.IDLE, l.find(runtime.id()).pauseReason());

        assertEquals(RuntimeStatus.PAUSED, l.pauses.pause(runtime.id()).status());

        assertEquals(PauseReason.REQUEST, l.find(runtime.id()).pauseReason());
        assertEquals(RuntimeStatus.PAUSED, l.idle.wakeForAction(runtime.id()).status(), "no longer woken by an action");
    }

    @Test
    void shouldPersistActivityInCoarseStepsAndRememberItAcrossARestart() {
        SandboxRuntime runtime = l.ready(false, 60, 0);
        Instant created = l.clock.instant();

        after(5);
        l.activity.touch(runtime.id());
        l.idle.sweep();
        assertEquals(created.plusSeconds(5), l.find(runtime.id()).lastActiveAt(), "first activity persisted");

        after(3);
        l.activity.touch(runtime.id());
        l.idle.sweep();
        assertEquals(created.plusSeconds(5), l.find(runtime.id()).lastActiveAt(), "3 s later: not written again");

        after(10);
        l.activity.touch(runtime.id());
        l.idle.sweep();
        Instant persisted = l.find(runtime.id()).lastActiveAt();
        assertEquals(created.plusSeconds(18), persisted);

        // a restarted control plane has nothing in memory: the persisted value counts, not "just now"
        Activity restarted = new Activity();
        restarted.clock = l.clock;
        after(30);
        assertEquals(persisted, restarted.lastActive(l.find(runtime.id())));
        assertNull(restarted.toPersist(l.find(runtime.id())));
        assertNotNull(persisted);
    }

    @Test
    void shouldDecideTtlBeforeIdlenessAndNothingForAProgramOrStartingRuntime() {
        SandboxRuntime runtime = l.ready(false, 10, 20);
        Instant now = runtime.createdAt().plusSeconds(20);
        assertEquals(IdleLifecycle.Decision.STOP, IdleLifecycle.decide(runtime, runtime.createdAt(), now, Duration.ZERO));
        assertEquals(IdleLifecycle.Decision.PAUSE,
                IdleLifecycle.decide(runtime, runtime.createdAt(), now.minusSeconds(1), Duration.ZERO));
        assertEquals(IdleLifecycle.Decision.NOTHING,
                IdleLifecycle.decide(runtime, now.minusSeconds(5), now.minusSeconds(1), Duration.ZERO));
    }

    /** A READY runtime as E2B's API makes it: no idle timeout, no TTL, an end time {@code seconds} from now. */
    private SandboxRuntime endingIn(int seconds, EndAction atEnd) {
        SandboxRuntime runtime = l.ready(false, 0, 0);
        runtime.endsAt(l.clock.instant().plusSeconds(seconds), atEnd);
        return runtime;
    }

    @Test
    void shouldStopARunningRuntimeOnceItsEndTimeHasPassed() {
        SandboxRuntime runtime = endingIn(300, EndAction.STOP);

        after(299);
        assertEquals(new IdleLifecycle.Report(0, 0, 0), l.idle.sweep());

        after(1);
        assertEquals(1, l.idle.sweep().stopped());
        SandboxRuntime stopped = l.find(runtime.id());
        assertEquals(RuntimeStatus.STOPPED, stopped.status());
        assertTrue(stopped.statusMessage().startsWith("Stopped: its end time 2026-01-01T00:05:00Z passed"),
                stopped.statusMessage());
        assertEquals(Phase.MISSING, l.backend.phase(runtime.containerName()), "its sandbox is removed");
    }

    @Test
    void shouldPauseARuntimeThatPausesAtItsEndAndKeepItPaused() {
        SandboxRuntime runtime = endingIn(60, EndAction.PAUSE);

        after(60);
        assertEquals(new IdleLifecycle.Report(0, 1, 0), l.idle.sweep());
        SandboxRuntime paused = l.find(runtime.id());
        assertEquals(RuntimeStatus.PAUSED, paused.status());
        assertEquals(PauseReason.END, paused.pauseReason());
        assertFalse(paused.pauseReason().wokenByAction(), "kept paused until resumed, as the user's pause");
        assertEquals(Phase.PAUSED, l.backend.phase(runtime.containerName()), "frozen, not removed");

        after(100_000);
        assertEquals(new IdleLifecycle.Report(0, 0, 0), l.idle.sweep(), "a paused runtime's end time does not count");
        assertEquals(RuntimeStatus.PAUSED, l.find(runtime.id()).status());
    }

    @Test
    void shouldCountTheEndTimeOnlyWhileTheRuntimeRuns() {
        SandboxRuntime runtime = endingIn(60, EndAction.STOP);
        l.pauses.pause(runtime.id());

        after(600);
        assertEquals(new IdleLifecycle.Report(0, 0, 0), l.idle.sweep());
        assertEquals(RuntimeStatus.PAUSED, l.find(runtime.id()).status(), "kept until resumed or deleted");

        l.pauses.resume(runtime.id());
        assertEquals(1, l.idle.sweep().stopped(), "resumed past its end time (without a new one): it ends");
    }

    @Test
    void shouldFollowAnEndTimeMovedEarlierOrLater() {
        SandboxRuntime runtime = endingIn(300, EndAction.STOP);
        l.journal.update(runtime.id(), r -> r.endsAt(l.clock.instant().plusSeconds(10)));

        after(10);
        assertEquals(1, l.idle.sweep().stopped(), "shortened");

        SandboxRuntime later = endingIn(10, EndAction.STOP);
        l.journal.update(later.id(), r -> r.endsAt(l.clock.instant().plusSeconds(600)));
        after(30);
        assertEquals(0, l.idle.sweep().stopped(), "extended");
    }

    @Test
    void shouldEndARuntimeAtOnceWhenAskedPastItsEndAndNotBefore() {
        SandboxRuntime stops = endingIn(30, EndAction.STOP);
        SandboxRuntime pauses = endingIn(30, EndAction.PAUSE);

        assertFalse(l.idle.endIfDue(stops.id()));
        assertEquals(RuntimeStatus.READY, l.find(stops.id()).status());

        after(30);
        assertTrue(l.idle.endIfDue(stops.id()));
        assertTrue(l.idle.endIfDue(pauses.id()));
        assertEquals(RuntimeStatus.STOPPED, l.find(stops.id()).status());
        assertEquals(RuntimeStatus.PAUSED, l.find(pauses.id()).status());
        assertFalse(l.idle.endIfDue(stops.id()), "already ended");
        assertFalse(l.idle.endIfDue(pauses.id()), "already paused");
    }

    @Test
    void shouldDecideTheTtlBeforeTheEndTime() {
        SandboxRuntime runtime = l.ready(false, 0, 20);
        runtime.endsAt(runtime.createdAt().plusSeconds(10), EndAction.PAUSE);
        Instant created = runtime.createdAt();
        assertEquals(IdleLifecycle.Decision.NOTHING,
                IdleLifecycle.decide(runtime, created, created.plusSeconds(9), Duration.ZERO));
        assertEquals(IdleLifecycle.Decision.PAUSE_AT_END,
                IdleLifecycle.decide(runtime, created, created.plusSeconds(10), Duration.ZERO));
        assertEquals(IdleLifecycle.Decision.STOP,
                IdleLifecycle.decide(runtime, created, created.plusSeconds(20), Duration.ZERO));
    }
}
