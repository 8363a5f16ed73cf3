package dev.dockyard.executor.plugins;

import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.Observation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * An optional capability of a sandbox (PROTOCOL.md's plugins): started only when the runtime asks
 * for it, on a thread of its own while the executor boots; {@code /ready} waits for it.
 */
public interface Plugin extends AutoCloseable {

    String name();

    /**
     * Brings the plugin up; blocks until it is ready.
     *
     * @throws PluginException when it cannot start: the message (with the plugin's own last
     *                         words) becomes the runtime's error
     */
    void start() throws PluginException;

    /** Whether this plugin carries out {@code action}. */
    boolean serves(Action action);

    /** Carries out an action it serves; {@code cwd} is the persistent shell's working directory. */
    Observation execute(Action action, Duration timeout, Path cwd);

    /** Configuration pushed after ready (see ActionExecutor#configure): the plugin's processes see it too. */
    default void configure(Map<String, String> variables) {
    }

    @Override
    void close();

    /** A plugin that could not start, and why. */
    class PluginException extends Exception {
        private static final long serialVersionUID = 1L;

        public PluginException(String message) {
            super(message);
        }

        public PluginException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
