package dev.dockyard.warmup;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /health/ready}'s {@code warm-up} check: DOWN while {@link StartupWarmUp} runs, UP once it is
 * done (its time in {@code tookMs}, and how many of the API's three requests were answered 401 as
 * they should be in {@code apiRequestsAnswered}, what the rehearsal of a provision did in
 * {@code rehearsal}: {@link StartupRehearsal}), and UP anyway once {@code dockyard.warm-up.readiness-limit}
 * seconds (default 10) have passed since the start: a warm-up held up by a node that does not
 * answer must not keep the server out of a load balancer.
 */
@Readiness
@ApplicationScoped
public class WarmUpReadiness implements HealthCheck {

    static final String NAME = "warm-up";

    @Inject
    StartupWarmUp warmUp;

    @Inject
    @ConfigProperty(name = "dockyard.warm-up.readiness-limit", defaultValue = "10")
    int limitSeconds;

    @Override
    public HealthCheckResponse call() {
        return check(warmUp.tookMillis(), warmUp.apiAnswered(), warmUp.rehearsed(), warmUp.sinceStart(),
                Duration.ofSeconds(limitSeconds));
    }

    static HealthCheckResponse check(Long tookMillis, int apiAnswered, String rehearsed, Duration sinceStart,
                                     Duration limit) {
        if (tookMillis != null) {
            return HealthCheckResponse.named(NAME).up().withData("tookMs", tookMillis)
                    .withData("apiRequestsAnswered", apiAnswered).withData("rehearsal", rehearsed).build();
        }
        if (sinceStart.compareTo(limit) >= 0) {
            return HealthCheckResponse.named(NAME).up().withData("state", "still under way after "
                    + limit.toSeconds() + " s: not waited for").build();
        }
        return HealthCheckResponse.named(NAME).down().withData("state", "under way").build();
    }
}
