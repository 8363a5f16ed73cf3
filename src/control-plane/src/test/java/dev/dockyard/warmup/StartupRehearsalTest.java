package dev.dockyard.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The rehearsal's own rules; what it does on a real server is StartupRehearsalIT's. */
class StartupRehearsalTest {

    private static final Instant NOW = Instant.parse("2026-12-03T16:00:00Z");

    @Test
    void shouldTakeForLeftOnlyRehearsalUsersOlderThanAnyRehearsal() {
        Instant old = NOW.minus(StartupRehearsal.LEFTOVER_AGE).minusSeconds(1);
        assertTrue(StartupRehearsal.isLeftover(StartupRehearsal.USER_PREFIX + "0a1b2c3d4e5f", old, NOW));
        // another control plane's rehearsal may be running now with a user this young
        assertFalse(StartupRehearsal.isLeftover(StartupRehearsal.USER_PREFIX + "0a1b2c3d4e5f",
                NOW.minus(Duration.ofMinutes(1)), NOW));
        // a user of an operator's is never one, however old
        assertFalse(StartupRehearsal.isLeftover("alice", old, NOW));
        assertFalse(StartupRehearsal.isLeftover("dockyard-warm-up", old, NOW));
    }

    @Test
    void shouldDoNothingWhenOff() {
        // not configured (dockyard.warm-up.rehearsal=false): no user made, no request sent
        assertEquals("off", new StartupRehearsal().rehearse(URI.create("http://127.0.0.1:9/api/v1/")));
    }
}
