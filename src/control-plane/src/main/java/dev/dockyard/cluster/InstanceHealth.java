package dev.dockyard.cluster;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/** {@code /health/live} names this instance and the singleton jobs' leases it holds. */
@Liveness
@ApplicationScoped
public class InstanceHealth implements HealthCheck {

    private static final List<String> JOBS = List.of(Leases.RECONCILER, Leases.CREDENTIAL_REFRESHER,
            Leases.POOL_KEEPER, Leases.IDLE_LIFECYCLE);

    @Inject
    Leases leases;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("instance").up()
                .withData("id", leases.instanceId())
                .withData("process", leases.me())
                .withData("leases", String.join(",", JOBS.stream().filter(leases::fresh).toList()))
                .build();
    }
}
