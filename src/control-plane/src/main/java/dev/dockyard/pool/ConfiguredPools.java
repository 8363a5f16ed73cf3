package dev.dockyard.pool;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The pools declared in MicroProfile Config: {@code dockyard.pools=name,...} and, per pool,
 * {@code dockyard.pool.<name>.size} (required), {@code .image}, {@code .cpus}, {@code .memory-mb},
 * {@code .plugins}, {@code .node}, {@code .max-booting}, {@code .executor-server} (the sandbox
 * defaults otherwise, and the node's executor server). They are written at every start, so
 * configuration wins over what the API changed since.
 */
@ApplicationScoped
public class ConfiguredPools {

    private static final Logger LOG = Logger.getLogger(ConfiguredPools.class.getName());

    @Inject
    DockyardConfig config;

    @Inject
    BackendNodes nodes;

    @Inject
    WarmPools pools;

    /** {@code .executor-server} of the pool, or null: its node's (see {@link WarmPools#declare}). */
    private static ExecutorServer executorServer(Config source, String prefix) {
        return source.getOptionalValue(prefix + "executor-server", String.class).map(String::strip)
                .filter(v -> !v.isEmpty())
                .map(v -> ExecutorServer.named(v).orElseThrow(() -> new IllegalArgumentException(prefix
                        + "executor-server: '" + v + "' is not one of " + ExecutorServer.NAMES)))
                .orElse(null);
    }

    public void declare() {
        Config source = ConfigProvider.getConfig();
        for (String name : config.pools()) {
            String prefix = "dockyard.pool." + name + ".";
            try {
                int size = source.getOptionalValue(prefix + "size", Integer.class).orElseThrow(
                        () -> new IllegalArgumentException(prefix + "size is not set"));
                List<String> plugins = source.getOptionalValue(prefix + "plugins", String.class)
                        .map(p -> Arrays.stream(p.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList())
                        .orElse(List.of());
                PoolSettings settings = new PoolSettings(name,
                        source.getOptionalValue(prefix + "image", String.class).orElse(config.sandboxImage()),
                        source.getOptionalValue(prefix + "cpus", Double.class).orElse(config.sandboxCpus()),
                        source.getOptionalValue(prefix + "memory-mb", Integer.class).orElse(config.sandboxMemoryMb()),
                        plugins,
                        source.getOptionalValue(prefix + "node", String.class).orElse(nodes.defaultNode()),
                        size,
                        source.getOptionalValue(prefix + "max-booting", Integer.class).orElse(2), null,
                        executorServer(source, prefix));
                pools.declare(settings, "config");
                LOG.info("Pool '" + name + "' declared from configuration: " + size + " warm sandboxes of "
                        + settings.image());
            } catch (RuntimeException e) {
                // one bad pool must not keep the control plane (or the other pools) from starting
                LOG.severe("Pool '" + name + "' in dockyard.pools is not declared: " + e.getMessage());
            }
        }
    }
}
