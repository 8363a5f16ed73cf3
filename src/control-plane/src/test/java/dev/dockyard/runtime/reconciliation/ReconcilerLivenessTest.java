package dev.dockyard.runtime.reconciliation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

class ReconcilerLivenessTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final long MAX_AGE = 300;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-25T14:00:00Z"));
    private final FakeLeaseStore store = new FakeLeaseStore();
    private final Leases a = new Leases(store, clock, ControlPlaneInstance.of("a", TTL));
    private final Leases b = new Leases(store, clock, ControlPlaneInstance.of("b", TTL));
    private final ReconcilerTurns turnsOfA = new ReconcilerTurns(clock);
    private final ReconcilerLiveness livenessOfA = new ReconcilerLiveness(turnsOfA, a, store, clock, MAX_AGE);
    private final ReconcilerLiveness livenessOfB = new ReconcilerLiveness(new ReconcilerTurns(clock), b, store, clock, MAX_AGE);

    private static Object data(HealthCheckResponse response, String key) {
        return response.getData().orElseThrow().get(key);
    }

    @Test
    void shouldBeUpWhileTheHoldersPassesKeepEnding() {
        assertTrue(a.hold(Leases.RECONCILER));
        turnsOfA.turned();
        for (int i = 0; i < 60; i++) {
            clock.advance(Duration.ofSeconds(10));
            a.hold(Leases.RECONCILER);
            turnsOfA.turned();
            HealthCheckResponse response = livenessOfA.call();
            assertEquals(HealthCheckResponse.Status.UP, response.getStatus(), "turn " + i);
            assertEquals("a", data(response, "leaseHolder"));
            assertEquals(0L, data(response, "lastPassAgeSeconds"));
        }
    }

    @Test
    void shouldGoDownOnTheHolderWhenNoPassEndedForTheMaximumAge() {
        assertTrue(a.hold(Leases.RECONCILER));
        turnsOfA.turned();
        // a pass hangs: the heartbeat still renews the lease, but no pass ends
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(10));
            a.heartbeat();
        }
        assertEquals(HealthCheckResponse.Status.UP, livenessOfA.call().getStatus(), "300 s is still within the maximum");
        clock.advance(Duration.ofSeconds(1));
        a.heartbeat();
        HealthCheckResponse response = livenessOfA.call();
        assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
        assertEquals("reconciler", response.getName());
        assertEquals(301L, data(response, "lastPassAgeSeconds"));
        // the pass ends at last: UP again
        turnsOfA.turned();
        assertEquals(HealthCheckResponse.Status.UP, livenessOfA.call().getStatus());
    }

    @Test
    void shouldStayUpAndNameTheHolderOnAnInstanceWithoutTheLease() {
        assertTrue(a.hold(Leases.RECONCILER));
        // b never runs a pass: the reconciler is a's, however long that lasts
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofSeconds(10));
            a.hold(Leases.RECONCILER);
            b.hold(Leases.RECONCILER);
        }
        HealthCheckResponse response = livenessOfB.call();
        assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
        assertEquals("a", data(response, "leaseHolder"));
    }

    @Test
    void shouldStayUpWhenTheLeaseCannotBeReadAndNoneIsHeld() {
        store.goDown(true);
        clock.advance(Duration.ofSeconds(1000));
        HealthCheckResponse response = livenessOfA.call();
        assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
        assertEquals("unknown", data(response, "leaseHolder"));
    }
}
