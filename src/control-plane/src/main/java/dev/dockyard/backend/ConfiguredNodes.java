package dev.dockyard.backend;

import dev.dockyard.config.DockyardConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The nodes {@code dockyard.nodes} names (default {@code local}), each opened at start by the
 * {@link NodeFactory} of its {@code dockyard.node.<name>.type} (a Docker engine when unset): a wrong
 * setting stops the start rather than every placement later. Every node has an
 * {@code executor-server} ({@link ExecutorServer}), whatever its type.
 */
@ApplicationScoped
public class ConfiguredNodes implements BackendNodes {

    private static final Logger LOG = Logger.getLogger(ConfiguredNodes.class.getName());

    @Inject
    DockyardConfig config;

    @Inject
    @Any
    Instance<NodeFactory> factories;

    private final Map<String, BackendNode> nodes = new LinkedHashMap<>();
    private final Map<String, ExecutorServer> executorServers = new LinkedHashMap<>();

    @PostConstruct
    void open() {
        Map<NodeType, NodeFactory> byType = new EnumMap<>(NodeType.class);
        for (NodeFactory factory : factories) {
            NodeFactory other = byType.put(factory.type(), factory);
            if (other != null) {
                throw new IllegalStateException("two factories open " + factory.type().label() + " nodes");
            }
        }
        Config settings = ConfigProvider.getConfig();
        List<String> names = config.nodes();
        for (String name : names) {
            // read at start, so that a wrong value stops the start rather than every reconciler pass later
            config.disconnectedGrace(name);
            // every type of node has one, a cli node too (it ignores it: its executor is in-process)
            executorServers.put(name, ExecutorServer.of(settings, name));
            NodeType type = NodeType.of(settings, name);
            NodeFactory factory = byType.get(type);
            if (factory == null) {
                throw new IllegalStateException("dockyard.node." + name + ".type: no factory opens " + type.label()
                        + " nodes in this build");
            }
            nodes.put(name, factory.open(name, name.equals(names.get(0))));
        }
    }

    @PreDestroy
    void close() {
        for (Map.Entry<String, BackendNode> node : nodes.entrySet()) {
            try {
                node.getValue().close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Closing node '" + node.getKey() + "' failed", e);
            }
        }
    }

    @Override
    public String defaultNode() {
        return names().get(0);
    }

    @Override
    public List<String> names() {
        return List.copyOf(nodes.keySet());
    }

    @Override
    public RuntimeBackend on(String node) {
        return node(node).backend();
    }

    @Override
    public RuntimeImageBuilder images(String node) {
        return node(node).images();
    }

    @Override
    public void requireIsolation(String node, SandboxIsolation isolation) {
        if (!isDefaultThere(node, isolation)) {
            node(node).requireIsolation(named(node), isolation);
        }
    }

    @Override
    public Optional<String> defaultRuntimeClass(String node) {
        return node(node).defaultRuntimeClass();
    }

    @Override
    public ExecutorServer executorServer(String node) {
        node(node);
        return executorServers.get(named(node));
    }

    /** The default node's for null; refused for an unknown name. */
    private BackendNode node(String node) {
        BackendNode found = nodes.get(named(node));
        if (found == null) {
            throw new UnknownNodeException(node, names());
        }
        return found;
    }
}
