package dev.dockyard.application.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.runtime.RuntimeStatus;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** E2B's two states of Dockyard's statuses, and the page tokens of its lists. */
class SandboxStateTest {

    @Test
    void shouldCallPausedAndHibernatedPausedEveryOtherLiveStatusRunningAndEndedNone() {
        for (RuntimeStatus status : RuntimeStatus.values()) {
            Optional<SandboxState> expected = switch (status) {
                case PAUSED, HIBERNATED -> Optional.of(SandboxState.PAUSED);
                case STOPPED, ERROR -> Optional.empty();
                default -> Optional.of(SandboxState.RUNNING);
            };
            assertEquals(expected, SandboxState.of(status), status.name());
        }
        assertEquals(Optional.of(SandboxState.PAUSED), SandboxState.named("paused"));
        assertEquals("running", SandboxState.RUNNING.apiName());
        assertEquals(Optional.empty(), SandboxState.named("Running"));
    }

    @Test
    void shouldDecodeOnlyTokensThisListHandsOut() {
        PageToken token = new PageToken(Instant.parse("2026-01-01T00:00:00.123456Z"), "rt-0123456789abcdef");
        assertEquals(Optional.of(token), PageToken.decode(token.encode()));
        for (String garbage : new String[] {"", "!!!", "YWJj", token.encode() + "x",
                Base64.getUrlEncoder().encodeToString("2026-01-01T00:00:00Z__rt-zz".getBytes())}) {
            assertEquals(Optional.empty(), PageToken.decode(garbage), garbage);
        }
    }
}
