package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.NodeFactory;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import org.eclipse.microprofile.config.ConfigProvider;

/** Opens a node of {@code type=local}: host processes of this machine ({@link LocalNode}). */
@ApplicationScoped
public class LocalNodeFactory implements NodeFactory {

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Override
    public NodeType type() {
        return NodeType.LOCAL;
    }

    @Override
    public BackendNode open(String name, boolean first) {
        return new LocalNode(LocalNodeConfig.read(ConfigProvider.getConfig(), name, config.instance(),
                config.imageBundle(), config.sandboxImage(), config.sandboxUser()), clock);
    }
}
