package dev.dockyard.backend.cli;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.NodeFactory;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import org.eclipse.microprofile.config.ConfigProvider;

/** Opens a node of {@code type=cli}: the control plane's own host, no sandbox at all ({@link CliNode}). */
@ApplicationScoped
public class CliNodeFactory implements NodeFactory {

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Override
    public NodeType type() {
        return NodeType.CLI;
    }

    @Override
    public BackendNode open(String name, boolean first) {
        return new CliNode(CliNodeConfig.read(ConfigProvider.getConfig(), name, config.sandboxImage(),
                config.sandboxUid()), clock);
    }
}
