package dev.dockyard.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The provisioning life cycle: which transitions exist and what each does to a runtime. */
class RuntimeStatusTest {

    private final Instant now = Instant.parse("2026-11-21T10:00:00Z");

    private SandboxRuntime runtime() {
        return new SandboxRuntime("conv-1", "alice", "docker", "img", 1.0, 1024, 120, now);
    }

    @Test
    void shouldFollowTheHappyPath() {
        SandboxRuntime r = runtime();
        assertEquals(RuntimeStatus.STARTING_RUNTIME, r.status());
        r.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", now.plusMillis(100));
        StatusChange ready = r.transitionTo(RuntimeStatus.READY, "Ready", now.plusMillis(900));
        assertEquals(RuntimeStatus.READY, r.status());
        assertEquals(now.plusMillis(900), r.readyAt());
        assertEquals(RuntimeStatus.READY, ready.status());
        assertEquals(r.id(), ready.runtimeId());
    }

    @Test
    void shouldNotSkipStartingOnTheWayToReady() {
        SandboxRuntime r = runtime();
        var e = assertThrows(IllegalTransitionException.class, () -> r.transitionTo(RuntimeStatus.READY, "x", now));
        assertEquals(RuntimeStatus.STARTING_RUNTIME, e.from());
        assertEquals(RuntimeStatus.STARTING_RUNTIME, r.status());
    }

    @Test
    void shouldFailFromEveryStartingStatus() {
        for (RuntimeStatus starting : EnumSet.of(RuntimeStatus.STARTING_RUNTIME, RuntimeStatus.BUILDING_RUNTIME,
                RuntimeStatus.RUNTIME_STARTED)) {
            assertTrue(starting.isStarting());
            assertTrue(starting.canBecome(RuntimeStatus.ERROR), starting + " -> ERROR");
            assertTrue(starting.canBecome(RuntimeStatus.STOPPED), starting + " -> STOPPED");
        }
    }

    @Test
    void shouldNeverLeaveStopped() {
        assertEquals(EnumSet.noneOf(RuntimeStatus.class), RuntimeStatus.STOPPED.successors());
        SandboxRuntime r = runtime();
        r.transitionTo(RuntimeStatus.STOPPED, "deleted", now);
        for (RuntimeStatus next : RuntimeStatus.values()) {
            assertThrows(IllegalTransitionException.class, () -> r.transitionTo(next, "late", now));
        }
    }

    @Test
    void shouldOnlyStopAfterError() {
        assertEquals(EnumSet.of(RuntimeStatus.STOPPED), RuntimeStatus.ERROR.successors());
    }

    @Test
    void shouldFreeTheConversationWhenNoLongerLive() {
        for (RuntimeStatus end : EnumSet.of(RuntimeStatus.ERROR, RuntimeStatus.STOPPED)) {
            assertFalse(end.isLive());
        }
        for (RuntimeStatus live : EnumSet.complementOf(EnumSet.of(RuntimeStatus.ERROR, RuntimeStatus.STOPPED))) {
            assertTrue(live.isLive(), live.name());
        }
        SandboxRuntime r = runtime();
        r.transitionTo(RuntimeStatus.ERROR, "Provisioning failed at step 'create': boom", now);
        assertEquals("Provisioning failed at step 'create': boom", r.statusMessage());
        assertNull(r.readyAt());
    }

    @Test
    void shouldPauseAndResumeOnlyFromReady() {
        assertTrue(RuntimeStatus.READY.canBecome(RuntimeStatus.PAUSED));
        assertTrue(RuntimeStatus.PAUSED.canBecome(RuntimeStatus.READY));
        assertFalse(RuntimeStatus.RUNTIME_STARTED.canBecome(RuntimeStatus.PAUSED));
        assertTrue(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED.canBecome(RuntimeStatus.READY));
    }

    @Test
    void shouldNameTheContainerAfterTheRuntimeAndKeepASessionKey() {
        SandboxRuntime r = runtime();
        assertTrue(r.id().matches("rt-[0-9a-f]{16}"), r.id());
        assertEquals("dockyard-" + r.id(), r.containerName());
        assertNotNull(r.sessionKey());
        assertEquals(32, r.sessionKey().length());
        assertFalse(runtime().sessionKey().equals(r.sessionKey()));
    }

    @Test
    void shouldClipVeryLongMessages() {
        SandboxRuntime r = runtime();
        r.transitionTo(RuntimeStatus.ERROR, "x".repeat(5000), now);
        assertEquals(2000, r.statusMessage().length());
    }
}
