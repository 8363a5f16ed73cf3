package dev.dockyard.placement;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * One backend node's readiness in MicroProfile Health ({@code /health/ready}), named
 * {@code node-<name>}: DOWN while its last health probe failed, with the error and when it was
 * probed. One per configured node ({@link NodeHealthChecks}).
 */
public class NodeReadiness implements HealthCheck {

    private final String node;
    private final NodeHealth health;

    public NodeReadiness(String node, NodeHealth health) {
        this.node = node;
        this.health = health;
    }

    @Override
    public HealthCheckResponse call() {
        NodeReport report = health.report(node);
        HealthCheckResponseBuilder response = HealthCheckResponse.named("node-" + node).status(report.healthy())
                .withData("node", node).withData("checkedAt", String.valueOf(report.checkedAt()));
        if (report.error() != null) {
            response.withData("error", report.error());
        }
        return response.build();
    }
}
