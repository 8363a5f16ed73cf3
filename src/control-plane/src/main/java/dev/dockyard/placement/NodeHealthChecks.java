package dev.dockyard.placement;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Readiness;

/**
 * Adds one {@link Readiness} check per configured backend node ({@link NodeReadiness}): MicroProfile
 * Health finds checks as beans, and the number of nodes is known only from configuration, so the
 * beans are added here rather than declared.
 */
public class NodeHealthChecks implements Extension {

    void addChecks(@Observes AfterBeanDiscovery discovery) {
        List<String> nodes = DockyardConfig.nodeNames(ConfigProvider.getConfig()
                .getOptionalValues("dockyard.nodes", String.class).orElse(List.of()));
        for (String node : nodes) {
            discovery.addBean()
                    .id(NodeHealthChecks.class.getName() + "/" + node)
                    .beanClass(NodeReadiness.class)
                    .types(HealthCheck.class, Object.class)
                    .qualifiers(Readiness.Literal.INSTANCE, Any.Literal.INSTANCE)
                    .scope(Dependent.class)
                    .produceWith(beans -> new NodeReadiness(node, beans.select(NodeHealth.class).get()));
        }
    }
}
