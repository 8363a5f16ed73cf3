package dev.dockyard.runtime.reconciliation;

import dev.dockyard.cluster.Lease;
import dev.dockyard.cluster.LeaseStore;
import dev.dockyard.cluster.Leases;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * {@code /health/live}'s {@code reconciler} check. On the instance holding the reconciler's lease
 * it is DOWN once the reconciler's timer has not turned ({@link ReconcilerTurns}) for
 * {@code dockyard.health.reconciler-max-age} seconds: a hung pass or a dead timer, which a restart
 * cures. On the other instances the reconciler is not theirs to run, so the check stays UP and
 * names the holder.
 */
@Liveness
@ApplicationScoped
public class ReconcilerLiveness implements HealthCheck {

    static final String NAME = "reconciler";

    @Inject
    ReconcilerTurns turns;

    @Inject
    Leases leases;

    @Inject
    LeaseStore store;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "dockyard.health.reconciler-max-age")
    long maxAgeSeconds;

    public ReconcilerLiveness() {
    }

    /** For tests: what a container would inject. */
    public ReconcilerLiveness(ReconcilerTurns turns, Leases leases, LeaseStore store, Clock clock, long maxAgeSeconds) {
        this.turns = turns;
        this.leases = leases;
        this.store = store;
        this.clock = clock;
        this.maxAgeSeconds = maxAgeSeconds;
    }

    @Override
    public HealthCheckResponse call() {
        if (!leases.fresh(Leases.RECONCILER)) {
            return HealthCheckResponse.named(NAME).up().withData("leaseHolder", holder()).build();
        }
        Duration age = Duration.between(turns.last(), clock.instant());
        return HealthCheckResponse.named(NAME).status(age.getSeconds() <= maxAgeSeconds)
                .withData("leaseHolder", leases.instanceId())
                .withData("lastPassAgeSeconds", age.getSeconds())
                .withData("maxAgeSeconds", maxAgeSeconds)
                .build();
    }

    private String holder() {
        try {
            return store.find(Leases.RECONCILER).filter(l -> l.expiresAt().isAfter(clock.instant()))
                    .map(Lease::holder).orElse("none");
        } catch (RuntimeException e) {
            // the database is out of reach: the readiness check "database" says so
            return "unknown";
        }
    }
}
