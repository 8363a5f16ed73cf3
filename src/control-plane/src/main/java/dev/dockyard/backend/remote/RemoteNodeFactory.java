package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.NodeFactory;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import org.eclipse.microprofile.config.ConfigProvider;

/** Opens a node of {@code type=remote}: another Dockyard control plane ({@link RemoteNode}). */
@ApplicationScoped
public class RemoteNodeFactory implements NodeFactory {

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    RemoteCalls calls;

    @Override
    public NodeType type() {
        return NodeType.REMOTE;
    }

    @Override
    public BackendNode open(String name, boolean first) {
        return new RemoteNode(RemoteNodeConfig.read(ConfigProvider.getConfig(), name, config.instance()), calls,
                config.executorPort(), config.sandboxUid(), clock, ConfigProvider.getConfig());
    }
}
