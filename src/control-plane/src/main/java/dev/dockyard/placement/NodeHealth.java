package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * The health of every backend node: the last probe of its backend ({@code RuntimeBackend.ping},
 * for Docker the engine's ping), with when it ran and why it failed. {@link NodeHealthTimer}
 * probes every node periodically, each on its own thread, so that an engine that hangs instead of
 * refusing delays nobody else's probe; a node never probed yet is probed on first ask, so a fresh
 * control plane never places on an engine nobody has looked at.
 *
 * <p>An answer that is overdue counts as a failure: a node whose last probe is older than
 * {@link #staleAfter()} (its probe hangs) is reported unhealthy, with when it last answered.
 */
@ApplicationScoped
public class NodeHealth {

    private static final Logger LOG = Logger.getLogger(NodeHealth.class.getName());

    /** Errors are reported, not dumped: a connection error's message says enough. */
    private static final int MAX_ERROR = 300;

    /** The least time a probe may take before its node counts as failing (a slow engine is not a dead one). */
    private static final Duration MIN_STALE = Duration.ofSeconds(30);

    @Inject
    BackendNodes nodes;

    @Inject
    Clock clock;

    @Inject
    DockyardConfig config;

    private final Map<String, NodeReport> reports = new ConcurrentHashMap<>();
    /** When each node last failed a probe. */
    private final Map<String, Instant> lastFailed = new ConcurrentHashMap<>();
    private final Set<String> probing = ConcurrentHashMap.newKeySet();

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
        if (!report.healthy()) {
            failedAt(node, report.checkedAt());
        }
        if (before == null ? !report.healthy() : before.healthy() != report.healthy()) {
            LOG.warning(report.healthy() ? "Backend node '" + node + "' is healthy again"
                    : "Backend node '" + node + "' fails its health check; it takes no new runtimes: "
                    + report.error());
        }
        return report;
    }

    /** Probes every configured node, one after the other, in the caller's thread. */
    public void probeAll() {
        nodes.names().forEach(this::probe);
    }

    /**
     * Starts a probe of every node on {@code threads}, except of a node whose previous probe has
     * not answered yet (it goes stale instead).
     */
    public void probeAll(Executor threads) {
        for (String node : nodes.names()) {
            if (!probing.add(node)) {
                continue;
            }
            try {
                threads.execute(() -> {
                    try {
                        probe(node);
                    } finally {
                        probing.remove(node);
                    }
                });
            } catch (RejectedExecutionException e) {
                probing.remove(node);
            }
        }
    }

    /** The last probe of {@code node}, probing it now if it never was; unhealthy when overdue. */
    public NodeReport report(String node) {
        NodeReport last = reports.get(node);
        if (last == null) {
            return probe(node);
        }
        Instant now = clock.instant();
        if (Duration.between(last.checkedAt(), now).compareTo(staleAfter()) > 0) {
            return new NodeReport(false, last.checkedAt(), "no answer to the health probe since " + last.checkedAt()
                    + (last.healthy() ? "" : " (" + last.error() + ")"));
        }
        return last;
    }

    /**
     * Whether {@code node}'s last probe failed. Never probes: for a pass over every node (the
     * reconciler's, the workspace sweep's) that should not wait on a node known to be unreachable,
     * whose calls would only fail after their retries.
     */
    public boolean knownDown(String node) {
        NodeReport last = reports.get(node);
        return last != null && !last.healthy();
    }

    /**
     * Records that a call found {@code node}'s engine not answering now, whatever its next probe says
     * (a connection cut mid-call while a fresh one still answers, the first moment of a cut).
     */
    public void sawUnreachable(String node) {
        failedAt(node, clock.instant());
    }

    private void failedAt(String node, Instant when) {
        // probes of one node may run at once (the timer's, a request's): the latest failure stands
        lastFailed.merge(node, when, (before, now) -> before.isAfter(now) ? before : now);
    }

    /**
     * Whether a probe of {@code node}, or a call ({@link #sawUnreachable}), found its engine not
     * answering at or after {@code since}: it was away for a while since then, though it may answer
     * again now (an engine restarted while a provision on it was under way). Never probes.
     */
    public boolean failedSince(String node, Instant since) {
        Instant failed = lastFailed.get(node);
        return failed != null && !failed.isBefore(since);
    }

    /** How old the last probe may be before its node counts as failing: three intervals, at least 30 s. */
    Duration staleAfter() {
        Duration threeIntervals = config.nodeHealthInterval().multipliedBy(3);
        return threeIntervals.compareTo(MIN_STALE) > 0 ? threeIntervals : MIN_STALE;
    }

    /** The root cause, named plainly ("ConnectException: Connection refused"): what the wrappers add is noise. */
    private static String describe(RuntimeException e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return message.length() > MAX_ERROR ? message.substring(0, MAX_ERROR) + "…" : message;
    }
}
