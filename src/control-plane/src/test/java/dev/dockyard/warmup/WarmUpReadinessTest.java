package dev.dockyard.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

class WarmUpReadinessTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void shouldBeDownWhileTheWarmUpRuns() {
        HealthCheckResponse r = WarmUpReadiness.check(null, 0, "not yet", Duration.ofSeconds(3), LIMIT);
        assertEquals(HealthCheckResponse.Status.DOWN, r.getStatus());
        assertEquals("under way", r.getData().orElseThrow().get("state"));
    }

    @Test
    void shouldBeUpOnceItIsDoneWithItsTime() {
        HealthCheckResponse r = WarmUpReadiness.check(1234L, 3, "READY in 812 ms, echo answered 200 in 25 ms, deleted 204",
                Duration.ofSeconds(3), LIMIT);
        assertEquals(HealthCheckResponse.Status.UP, r.getStatus());
        assertEquals(1234L, r.getData().orElseThrow().get("tookMs"));
        assertEquals(3L, r.getData().orElseThrow().get("apiRequestsAnswered"));
        assertEquals("READY in 812 ms, echo answered 200 in 25 ms, deleted 204", r.getData().orElseThrow().get("rehearsal"));
    }

    @Test
    void shouldNotKeepTheServerOutOfALoadBalancerPastItsLimit() {
        HealthCheckResponse r = WarmUpReadiness.check(null, 0, "not yet", LIMIT, LIMIT);
        assertEquals(HealthCheckResponse.Status.UP, r.getStatus());
        assertEquals("still under way after 30 s: not waited for", r.getData().orElseThrow().get("state"));
    }
}
