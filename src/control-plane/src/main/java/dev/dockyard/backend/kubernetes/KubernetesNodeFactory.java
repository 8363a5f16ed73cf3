package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.NodeFactory;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import org.eclipse.microprofile.config.ConfigProvider;

/** Opens a node of {@code type=kubernetes}: a namespace of a cluster ({@link KubernetesNode}). */
@ApplicationScoped
public class KubernetesNodeFactory implements NodeFactory {

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Override
    public NodeType type() {
        return NodeType.KUBERNETES;
    }

    @Override
    public BackendNode open(String name, boolean first) {
        return new KubernetesNode(KubernetesNodeConfig.read(ConfigProvider.getConfig(), name, config.sandboxDiskMb()),
                clock);
    }
}
