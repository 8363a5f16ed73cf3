package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The health of every backend node: the last probe of its backend ({@code RuntimeBackend.ping},
 * for Docker the engine's ping), with when it ran and why it failed. {@link NodeHealthTimer}
 * probes every node periodically; a node never probed yet is probed on first ask, so a fresh
 * control plane never places on an engine nobody has looked at.
 */
@ApplicationScoped
public class NodeHealth {

    private static final Logger LOG = Logger.getLogger(NodeHealth.class.getName());

    /** Errors are reported, not dumped: a connection error's message says enough. */
    private static final int MAX_ERROR = 300;

    @Inject
    BackendNodes nodes;

    @Inject
    Clock clock;

    private final Map<String, NodeReport> reports = new ConcurrentHashMap<>();

    /** Probes {@code node} now and records the result. */
    public NodeReport probe(String node) {
        NodeReport report;
        try {
            nodes.on(node).ping();
            report = new NodeReport(true, clock.instant(), null);
        } catch (RuntimeException e) {
            report = new NodeReport(false, clock.instant(), describe(e));
        }
        NodeReport before = reports.put(node, report);
        if (before == null ? !report.healthy() : before.healthy() != report.healthy()) {
            LOG.warning(report.healthy() ? "Backend node '" + node + "' is healthy again"
                    : "Backend node '" + node + "' fails its health check; it takes no new runtimes: "
                    + report.error());
        }
        return report;
    }

    /** Probes every configured node, one after the other. */
    public void probeAll() {
        nodes.names().forEach(this::probe);
    }

    /** The last probe of {@code node}, probing it now if it never was. */
    public NodeReport report(String node) {
        NodeReport last = reports.get(node);
        return last != null ? last : probe(node);
    }

    private static String describe(RuntimeException e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return message.length() > MAX_ERROR ? message.substring(0, MAX_ERROR) + "…" : message;
    }
}
