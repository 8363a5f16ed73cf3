package dev.dockyard.executor.api;

import dev.dockyard.executor.ActionExecutor;
import dev.dockyard.executor.config.ExecutorSettings;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the executor with the application and holds it. Until it has started (or if it could
 * not, e.g. without a session key) {@code /alive} says "not initialized" and every protected path
 * answers 403: the executor never serves unauthenticated.
 */
@ApplicationScoped
public class ExecutorLifecycle {

    private static final Logger LOG = Logger.getLogger(ExecutorLifecycle.class.getName());

    private volatile ExecutorSettings settings;
    private volatile ActionExecutor executor;
    private volatile String failure;

    void onStart(@Observes Startup startup) {
        try {
            settings = ExecutorSettings.fromEnvironment(System.getenv());
            executor = new ActionExecutor(settings, System.getenv());
            LOG.info("Executor ready, workspace " + settings.workspace());
        } catch (IllegalStateException | IOException e) {
            failure = e.getMessage();
            LOG.log(Level.SEVERE, "Executor could not start: " + e.getMessage());
        }
    }

    public boolean initialized() {
        return executor != null;
    }

    public ActionExecutor executor() {
        return executor;
    }

    /** The expected session key, or null when none was given (then nothing is authorised). */
    byte[] sessionKey() {
        return settings == null ? null : settings.sessionKey();
    }

    public String failure() {
        return failure;
    }

    @PreDestroy
    void stop() {
        if (executor != null) {
            executor.close();
        }
    }
}
