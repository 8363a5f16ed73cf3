package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.application.remote.ProxyTargets;
import dev.dockyard.persistence.DatabaseOutage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The proxy's side of the {@link ProxyTargets} port. The port is looked up, not required, so that a
 * build without an implementation still deploys: the proxy then claims no path and every request
 * goes on to the rest of the application as before. A failing traffic report never fails the
 * exchange it reports.
 */
@ApplicationScoped
public class ProxyRuntimes {

    /** How often a dropped connection's sandbox is looked at, and how far apart. */
    static final int DROPPED_CHECKS = 3;
    static final long DROPPED_CHECK_INTERVAL_MS = 500;

    private static final Logger LOG = Logger.getLogger(ProxyRuntimes.class.getName());

    @Inject
    Instance<ProxyTargets> targets;

    private volatile boolean warned;

    /** Whether exactly one implementation of the port is there. */
    public boolean available() {
        boolean resolvable = targets.isResolvable();
        if (!resolvable && !warned) {
            warned = true;
            LOG.warning(() -> "No single ProxyTargets implementation (" + (targets.isUnsatisfied() ? "none" : "several")
                    + "): service URLs are not proxied");
        }
        return resolvable;
    }

    public Optional<ProxyTarget> find(String runtimeId) {
        return targets.get().find(runtimeId);
    }

    /** The runtime whose service key {@code matches} accepts (a signed URL's), among those exposing their main service. */
    public Optional<ProxyTarget> findByKey(Predicate<String> matches) {
        return targets.get().findByKey(matches);
    }

    /**
     * The refusal for a request whose service refused the connection or did not take it in time. The
     * main service of a READY runtime is its sandbox's own server: gone with its sandbox (stopped,
     * or its engine restarting, or stopping with its server already gone), the runtime is being
     * recovered (a 503 with {@code Retry-After}, and the reconciler told). A sandbox whose server
     * still answers, or any other port (the sandbox program's, which may simply not listen yet), is a 502.
     */
    public Admission.Refused unreachable(ProxyExchange exchange) {
        return recoveringElse(exchange, "is unreachable", 1);
    }

    /**
     * The refusal for a request whose service took the connection and dropped it without an answer:
     * the engine's port forwarder does so for a sandbox that has stopped while the forwarder lives on
     * (an engine stopping its containers: the soak's engine restart, 2026-11-30, 104 such 502s at
     * envd's routes), and so does a server that begins to stop before its sandbox is recorded
     * stopped. When the sandbox is found stopped, stopping or its engine gone, the runtime is being
     * recovered, as for a refused connection, and the request, which may have run in part, is the
     * client's to send again; otherwise (the server answers on) a 502.
     */
    public Admission.Refused dropped(ProxyExchange exchange) {
        // a killed executor drops its connections a moment before its sandbox stops (the soak's
        // executor kills: the sandbox still ran when asked): asked again for up to a second
        return recoveringElse(exchange, "failed", DROPPED_CHECKS);
    }

    private Admission.Refused recoveringElse(ProxyExchange exchange, String otherwise, int checks) {
        ServiceRoute route = exchange.route();
        Admission.Refused unreachable = new Admission.Refused(502, "Runtime service " + route.service()
                + " " + otherwise);
        if (!route.service().equals(ProxyTarget.MAIN)) {
            return unreachable;
        }
        try {
            for (int check = 1; check <= checks; check++) {
                if (targets.get().unanswered(route.runtimeId())) {
                    return Admission.recovering("Runtime");
                }
                if (check < checks) {
                    Thread.sleep(DROPPED_CHECK_INTERVAL_MS);
                }
            }
            return unreachable;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unreachable;
        } catch (RuntimeException e) {
            if (DatabaseOutage.causes(e)) {
                // the database away (or its connections not yet renewed after its return, the soak's
                // PostgreSQL stop, 2026-12-01): the client's to send again, as for any request then
                DatabaseOutage.note(e);
                return new Admission.Refused(503, DatabaseOutage.ANSWER, DatabaseOutage.RETRY_AFTER_SECONDS);
            }
            LOG.log(Level.FINE, "Asking whether " + route.runtimeId() + " is being recovered failed", e);
            return unreachable;
        }
    }

    /** Reports one finished exchange or WebSocket session. */
    public void traffic(ProxyExchange exchange, boolean websocket, long bytesIn, long bytesOut) {
        try {
            ServiceRoute route = exchange.route();
            targets.get().traffic(route.runtimeId(), route.service(), websocket, bytesIn, bytesOut);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Traffic report for " + exchange.route().runtimeId() + " failed", e);
        }
    }
}
