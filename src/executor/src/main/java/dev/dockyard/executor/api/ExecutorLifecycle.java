package dev.dockyard.executor.api;

import dev.dockyard.executor.ActionExecutor;
import dev.dockyard.executor.ExecutorRequests;
import dev.dockyard.executor.IdleCollector;
import dev.dockyard.executor.config.ExecutorSettings;
import java.io.IOException;
import java.time.Clock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the executor with the application and holds it. Until it has started (or if it could
 * not, e.g. without a session key) {@code /alive} says "not initialized" and every protected path
 * answers 403: the executor never serves unauthenticated.
 *
 * <p>A plain object shared by the JAX-RS singletons rather than a CDI bean: the application then
 * needs no bean archive, and the sandbox boots without a CDI container for it.
 */
public class ExecutorLifecycle implements ExecutorRequests.Host {

    private static final Logger LOG = Logger.getLogger(ExecutorLifecycle.class.getName());
    /** Exit code when the executor cannot start: the container ends, and says why in its log. */
    static final int CANNOT_START = 64;

    private static ExecutorLifecycle instance;

    /**
     * The one executor of this sandbox. JAX-RS may construct the application more than once; the
     * session key file can be read only once, so the executor is started exactly once here.
     */
    public static synchronized ExecutorLifecycle instance() {
        if (instance == null) {
            instance = new ExecutorLifecycle();
            instance.start();
            Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "executor-stop"));
        }
        return instance;
    }

    private volatile ExecutorSettings settings;
    private volatile ActionExecutor executor;
    private volatile String failure;
    private final ExecutorRequests requests = new ExecutorRequests(this);
    private volatile IdleCollector idleCollector;

    /**
     * Reads the settings (and the session key) at once, then starts the shell on a thread of its
     * own, so that it comes up while the server is still starting; {@code /ready} waits for it.
     */
    void start() {
        try {
            settings = ExecutorSettings.fromEnvironment(System.getenv());
            idleCollector = IdleCollector.fromEnvironment(System.getenv(), Clock.systemUTC());
        } catch (IllegalStateException | NumberFormatException e) {
            refuseToRun(e.getMessage());
            return;
        }
        Thread shellStarter = new Thread(() -> {
            try {
                executor = new ActionExecutor(settings, System.getenv());
                LOG.info("Executor ready, workspace " + settings.workspace());
            } catch (IOException | RuntimeException e) {
                refuseToRun(e.getMessage());
            }
        }, "executor-start");
        shellStarter.setDaemon(true);
        shellStarter.start();
    }

    private void refuseToRun(String reason) {
        failure = reason;
        LOG.log(Level.SEVERE, "Executor could not start: " + reason);
        // end the sandbox rather than serve 403s and 503s until someone notices
        Thread exit = new Thread(() -> System.exit(CANNOT_START), "executor-refuses-to-start");
        exit.setDaemon(true);
        exit.start();
    }

    public boolean initialized() {
        return executor != null;
    }

    @Override
    public ActionExecutor executor() {
        return executor;
    }

    /** PROTOCOL.md's requests, answered by the executor core. */
    public ExecutorRequests requests() {
        return requests;
    }

    /** An action was served: the heap is given back once the executor goes idle (see IdleCollector). */
    public void served() {
        IdleCollector collector = idleCollector;
        if (collector != null) {
            collector.activity();
        }
    }

    @Override
    public byte[] sessionKey() {
        return settings == null ? null : settings.sessionKey();
    }

    @Override
    public String failure() {
        return failure;
    }

    void stop() {
        if (executor != null) {
            executor.close();
        }
        if (idleCollector != null) {
            idleCollector.close();
        }
    }
}
