package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which exited egress helpers a sweep takes: only those no runner can still be reading. */
class HelperSweepTest {

    private static final Instant CUTOFF = Instant.parse("2026-11-29T08:00:00Z");

    @Test
    void shouldLeaveAHelperThatJustExitedToItsRunner() {
        // a helper of a provision running now, exited a moment before the sweep listed it
        assertFalse(SandboxNetworks.leftBehind(CUTOFF.plusSeconds(15).getEpochSecond(), CUTOFF));
        assertFalse(SandboxNetworks.leftBehind(CUTOFF.minusSeconds(EgressHelper.TIMEOUT_SECONDS).getEpochSecond(),
                CUTOFF), "its runner may still be reading the log of a helper that ran its whole timeout");
    }

    @Test
    void shouldTakeAHelperNoRunnerCanBeReading() {
        assertTrue(SandboxNetworks.leftBehind(CUTOFF.minusSeconds(2L * EgressHelper.TIMEOUT_SECONDS + 1)
                .getEpochSecond(), CUTOFF));
        assertFalse(SandboxNetworks.leftBehind(null, CUTOFF), "no creation time: not known to be old");
    }
}
