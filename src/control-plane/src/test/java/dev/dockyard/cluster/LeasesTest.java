package dev.dockyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LeasesTest {

    private static final Duration TTL = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-25T13:00:00Z"));
    private final FakeLeaseStore store = new FakeLeaseStore();
    private final Leases a = new Leases(store, clock, ControlPlaneInstance.of("a", TTL));
    private final Leases b = new Leases(store, clock, ControlPlaneInstance.of("b", TTL));

    @Test
    void shouldGrantAFreeLeaseToOneInstanceOnly() {
        assertTrue(a.hold(Leases.RECONCILER));
        assertFalse(b.hold(Leases.RECONCILER));
        assertTrue(a.fresh(Leases.RECONCILER));
        assertFalse(b.fresh(Leases.RECONCILER));
    }

    @Test
    void shouldKeepTheLeaseWhileTheHolderRenewsIt() {
        assertTrue(a.hold(Leases.RECONCILER));
        for (int i = 0; i < 20; i++) {
            clock.advance(Duration.ofSeconds(10));
            assertTrue(a.hold(Leases.RECONCILER), "renewal " + i);
            assertFalse(b.hold(Leases.RECONCILER), "take-over attempt " + i);
        }
    }

    @Test
    void shouldLetAnotherInstanceTakeTheLeaseOnlyAfterItExpired() {
        assertTrue(a.hold(Leases.RECONCILER));
        clock.advance(TTL);
        assertFalse(b.hold(Leases.RECONCILER), "at the expiry itself the lease is still a's");
        clock.advance(Duration.ofMillis(1));
        assertTrue(b.hold(Leases.RECONCILER));
        assertEquals("b", store.find(Leases.RECONCILER).orElseThrow().holder());
        assertFalse(a.hold(Leases.RECONCILER), "a, back, finds it taken");
        assertFalse(a.fresh(Leases.RECONCILER));
    }

    @Test
    void shouldStopActingBeforeTheLeaseCanBeTakenOver() {
        assertTrue(a.hold(Leases.RECONCILER));
        // a's renewals fail (its database is out of reach): a must stop acting before b may start
        store.goDown(true);
        clock.advance(Duration.ofSeconds(19));
        assertFalse(a.hold(Leases.RECONCILER));
        assertFalse(a.fresh(Leases.RECONCILER));
        store.goDown(false);
        clock.advance(Duration.ofSeconds(12));
        assertTrue(b.hold(Leases.RECONCILER));
        assertFalse(a.fresh(Leases.RECONCILER));
    }

    @Test
    void shouldNotBeFreshPastTwoThirdsOfTheTimeToLiveWithoutRenewal() {
        assertTrue(a.hold(Leases.RECONCILER));
        clock.advance(Duration.ofSeconds(19));
        assertTrue(a.fresh(Leases.RECONCILER));
        clock.advance(Duration.ofSeconds(1));
        assertFalse(a.fresh(Leases.RECONCILER), "fresh ends a third of the ttl before the expiry");
        // no other instance could have taken it yet: the expiry is 10 s away
        assertFalse(b.hold(Leases.RECONCILER));
    }

    @Test
    void shouldNeverHaveTwoFreshHoldersOverAnInterleaving() {
        for (int second = 0; second < 600; second++) {
            // a renews every 10 s until it "dies" at 200 s, b tries every 7 s
            if (second < 200 && second % 10 == 0) {
                a.hold(Leases.RECONCILER);
            }
            if (second % 7 == 0) {
                b.hold(Leases.RECONCILER);
            }
            assertFalse(a.fresh(Leases.RECONCILER) && b.fresh(Leases.RECONCILER), "two holders at " + second);
            clock.advance(Duration.ofSeconds(1));
        }
        assertTrue(b.fresh(Leases.RECONCILER) || b.hold(Leases.RECONCILER), "b took over after a died");
    }

    @Test
    void shouldKeepEveryHeldLeaseThroughHeartbeatsAlone() {
        assertTrue(a.hold(Leases.RECONCILER));
        for (int i = 0; i < 24; i++) {
            clock.advance(Duration.ofSeconds(5));
            a.heartbeat();
            assertTrue(a.fresh(Leases.RECONCILER), "fresh after heartbeat " + i);
            assertFalse(b.hold(Leases.RECONCILER));
        }
        assertTrue(b.alive(a.me()));
    }

    @Test
    void shouldTellALiveInstanceFromADeadOne() {
        assertTrue(a.heartbeat());
        assertTrue(b.alive(a.me()));
        clock.advance(TTL.plusSeconds(1));
        assertFalse(b.alive(a.me()), "a's heartbeat expired");
        assertFalse(b.alive("never-seen#1"));
        assertTrue(b.alive(b.me()), "an instance is alive to itself");
    }

    /**
     * An instance restarted under its fixed id (the soak's two control planes, a StatefulSet's pods)
     * heartbeats again, but the process killed before it does not: its work is taken over once its
     * own heartbeat expires, by the others, and at once by its restart (the soak, 2026-11-30: two
     * provisions stayed STARTING and seven idempotency keys "still being answered" for good, the
     * killed instance being alive again under its id).
     */
    @Test
    void shouldTakeTheProcessBeforeARestartUnderTheSameIdForDead() {
        assertTrue(a.heartbeat());
        String killed = a.me();
        Leases restarted = new Leases(store, clock, ControlPlaneInstance.of("a", "2", TTL));
        assertTrue(restarted.heartbeat(), "its own heartbeat, not the killed one's");
        assertEquals("a", restarted.instanceId());

        assertFalse(restarted.alive(killed), "its earlier self, at once");
        assertFalse(restarted.alive("a"), "a record of the instance id alone (before processes were named) too");
        assertTrue(b.alive(killed), "to the others until its heartbeat expires");
        clock.advance(TTL.plusSeconds(1));
        restarted.heartbeat();
        assertFalse(b.alive(killed), "dead, though its instance heartbeats again");
        assertTrue(b.alive(restarted.me()));
    }

    @Test
    void shouldSweepTheHeartbeatsOfKilledProcessesADayLater() {
        assertTrue(a.heartbeat());
        String killed = a.me();
        clock.advance(Duration.ofDays(1).plus(TTL).plusSeconds(1));
        assertTrue(b.heartbeat());
        assertTrue(store.find("instance:" + killed).isEmpty(), "swept");
        assertTrue(store.find("instance:" + b.me()).isPresent());
    }

    @Test
    void shouldReleaseLeasesSoAnotherTakesOverAtOnce() {
        assertTrue(a.hold(Leases.POOL_KEEPER));
        assertTrue(a.heartbeat());
        a.releaseAll();
        assertFalse(a.fresh(Leases.POOL_KEEPER));
        assertTrue(b.hold(Leases.POOL_KEEPER));
        assertFalse(b.alive("a"), "a stopped cleanly: its heartbeat is gone");
    }

    @Test
    void shouldTreatAnUnknownStateAsAliveWhenTheDatabaseCannotTell() {
        store.goDown(true);
        assertTrue(b.alive("a"), "no take-over on a guess");
        assertFalse(b.hold(Leases.RECONCILER));
    }
}
