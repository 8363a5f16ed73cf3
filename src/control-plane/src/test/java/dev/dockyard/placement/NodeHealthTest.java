package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.MutableClock;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeHealthTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    private final MutableClock clock = new MutableClock(NOW);
    private final FakeNodes nodes = new FakeNodes("a", "b");
    private final NodeHealth health = Placements.health(nodes, clock);

    @Test
    void shouldProbeANodeNeverProbedOnFirstAskAndKeepTheResultWithItsTime() {
        nodes.backend("b").pingFails(new BackendException("Cannot connect to the Docker daemon"));

        assertEquals(new NodeReport(true, NOW, null), health.report("a"));
        assertEquals(new NodeReport(false, NOW, "BackendException: Cannot connect to the Docker daemon"),
                health.report("b"));
        nodes.backend("b").pingFails(null);
        clock.advance(Duration.ofSeconds(5));
        assertFalse(health.report("b").healthy(), "the last probe stands until the next one");
    }

    /**
     * Whether a node was away since a moment: a failed probe, or a call that found its engine silent
     * while its probe still answered (the first moment of a cut); the latest such time stands.
     */
    @Test
    void shouldSayWhetherANodeWasAwaySinceAMomentThoughItAnswersNow() {
        Instant created = NOW.plusSeconds(10);
        assertFalse(health.failedSince("b", NOW), "never failed");
        nodes.backend("b").pingFails(new BackendException("Cannot connect to the Docker daemon"));
        health.probe("b");
        nodes.backend("b").pingFails(null);
        clock.advance(Duration.ofSeconds(20));
        health.probe("b");

        assertTrue(health.report("b").healthy());
        assertTrue(health.failedSince("b", NOW), "a failure at the moment counts");
        assertFalse(health.failedSince("b", created), "one before the moment does not");

        health.sawUnreachable("b");
        assertTrue(health.failedSince("b", created), "a call's, though the probe answers");
        assertTrue(health.report("b").healthy(), "the probe's word on now stands");
    }

    @Test
    void shouldProbeANodeACallFoundUnansweringAtOnceAndKeepItDownUntilAProbeAnswers() {
        assertTrue(health.report("b").healthy());
        nodes.backend("b").pingFails(new EngineUnreachableException("the Docker engine of node 'b' does not answer",
                new ConnectException("Connection refused")));

        health.probe("b");

        assertEquals(new NodeReport(false, NOW, "ConnectException: Connection refused"), health.report("b"));
        assertTrue(health.knownDown("b"));
        nodes.backend("b").pingFails(null);
        clock.advance(Duration.ofSeconds(10));
        health.probeAll();
        assertTrue(health.report("b").healthy(), "its next probe says it answers again");
    }

    @Test
    void shouldKeepANodeWhoseProbeAnswersAfterACallFailedHealthy() {
        assertTrue(health.report("a").healthy());

        health.probe("a"); // one connection reset under load: the engine answers its probe

        assertTrue(health.report("a").healthy());
    }

    @Test
    void shouldNameTheRootCauseOfAFailedProbe() {
        nodes.backend("a").pingFails(new RuntimeException(new ConnectException("Connection refused")));

        assertEquals("ConnectException: Connection refused", health.report("a").error());
    }

    @Test
    void shouldCountANodeWhoseProbeIsOverdueAsUnhealthy() {
        health.probeAll();
        clock.advance(Duration.ofSeconds(30));
        assertTrue(health.report("a").healthy(), "30 s is the least a probe may take");

        clock.advance(Duration.ofSeconds(1));
        NodeReport stale = health.report("a");
        assertFalse(stale.healthy());
        assertEquals(NOW, stale.checkedAt());
        assertEquals("no answer to the health probe since 2026-11-23T12:00:00Z", stale.error());

        health.probeAll();
        assertEquals(new NodeReport(true, NOW.plusSeconds(31), null), health.report("a"));
    }

    @Test
    void shouldNotStartASecondProbeOfANodeWhoseFirstHasNotAnswered() {
        List<Runnable> started = new ArrayList<>();
        health.probeAll(started::add);
        health.probeAll(started::add);
        assertEquals(2, started.size(), "one probe per node under way, not one per pass");

        started.get(0).run();
        health.probeAll(started::add);
        assertEquals(3, started.size(), "a node whose probe answered is probed again");
        assertEquals(new NodeReport(true, NOW, null), health.report("a"));
    }
}
