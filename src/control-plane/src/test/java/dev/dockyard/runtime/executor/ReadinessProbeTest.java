package dev.dockyard.runtime.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.SandboxState;
import dev.dockyard.fakes.FakeBackend;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One try of the readiness probe (Fault Tolerance, which repeats it, is not here). */
class ReadinessProbeTest {

    private final FakeBackend backend = new FakeBackend().put("sb", "rt", Instant.EPOCH, SandboxState.Phase.RUNNING);
    private final List<URI> keyedProbes = new ArrayList<>();
    private final ReadinessProbe probe = new ReadinessProbe();

    ReadinessProbeTest() {
        probe.executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                keyedProbes.add(executor);
                return true;
            }
        };
    }

    private ReadinessAttempt attempt() {
        return new ReadinessAttempt(backend, "sb", backend.endpoint("sb", 8000), "the-key", Duration.ofMinutes(1),
                Clock.systemUTC());
    }

    @Test
    void shouldAskTheExecutorOnceItsOwnListenerIsThere() {
        probe.probe(attempt());
        assertEquals(1, keyedProbes.size());
    }

    @Test
    void shouldNeverSendTheKeyToAPortAnotherProcessTook() {
        backend.portTaken("sb");
        ReadinessProbe.SandboxNotReadyException failed = assertThrows(ReadinessProbe.SandboxNotReadyException.class,
                () -> probe.probe(attempt()));
        assertTrue(failed.getMessage().contains("another process"), failed.getMessage());
        assertTrue(keyedProbes.isEmpty(), "the key went to " + keyedProbes);
    }
}
