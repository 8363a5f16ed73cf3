package dev.dockyard.executor.plugins;

import dev.dockyard.protocol.Action;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The plugins a sandbox was asked for, each started on its own thread, and their state: the
 * sandbox is ready when all are up, and failed as soon as one fails. Plugins nobody asked for are
 * never constructed.
 */
public final class Plugins implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Plugins.class.getName());

    /** Every plugin this executor knows, by name. */
    public static final Set<String> KNOWN = Set.of(JupyterPlugin.NAME, BrowserPlugin.NAME);

    private final Map<String, Plugin> plugins = new LinkedHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    private final Set<String> up = ConcurrentHashMap.newKeySet();

    private Plugins() {
    }

    /**
     * Constructs and starts the requested plugins in the background.
     *
     * @throws IllegalArgumentException for a name this executor does not know
     */
    public static Plugins start(List<String> requested, Function<String, Plugin> factory) {
        Plugins all = new Plugins();
        for (String name : requested) {
            if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("unknown plugin '" + name + "'; known: " + KNOWN);
            }
            all.plugins.put(name, factory.apply(name));
        }
        all.plugins.values().forEach(plugin -> {
            Thread starter = new Thread(() -> {
                long t0 = System.nanoTime();
                try {
                    plugin.start();
                    all.up.add(plugin.name());
                    LOG.info("Plugin " + plugin.name() + " up in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
                } catch (Plugin.PluginException | RuntimeException e) {
                    all.failures.put(plugin.name(), e.getMessage() == null ? e.toString() : e.getMessage());
                    LOG.log(Level.SEVERE, "Plugin " + plugin.name() + " failed to start: " + e.getMessage());
                }
            }, "plugin-" + plugin.name());
            starter.setDaemon(true);
            starter.start();
        });
        return all;
    }

    public boolean ready() {
        return up.size() == plugins.size();
    }

    /** The first plugin that failed to start, with why; empty while none has. */
    public Optional<Map.Entry<String, String>> failure() {
        return failures.entrySet().stream().findFirst();
    }

    /** The started plugin that serves {@code action}, if one was requested. */
    public Optional<Plugin> serving(Action action) {
        return plugins.values().stream().filter(p -> p.serves(action)).findFirst();
    }

    public List<String> names() {
        return List.copyOf(plugins.keySet());
    }

    public void configure(Map<String, String> variables) {
        plugins.values().stream().filter(p -> up.contains(p.name())).forEach(p -> p.configure(variables));
    }

    @Override
    public void close() {
        plugins.values().forEach(Plugin::close);
    }
}
