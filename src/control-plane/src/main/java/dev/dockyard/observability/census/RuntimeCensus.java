package dev.dockyard.observability.census;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * How many runtimes are in each status on each node, counted by the database. A scrape reads one
 * gauge per status and node: one grouped query answers them all, kept for a second so a scrape
 * costs one query (and several control planes sharing the database agree). The gauges
 * ({@code dockyard_runtimes}) are registered here, beside the counts they read, rather than in
 * {@link DockyardMetrics}, which the domain's services call and which therefore imports none of the
 * domain.
 */
@ApplicationScoped
public class RuntimeCensus {

    private static final Logger LOG = Logger.getLogger(RuntimeCensus.class.getName());
    /** Long enough to serve one scrape from one query, short enough that no scrape reads old counts. */
    private static final Duration FRESH = Duration.ofSeconds(1);

    @Inject
    RuntimeRepository runtimes;

    @Inject
    BackendNodes nodes;

    @Inject
    Clock clock;

    @Inject
    MetricRegistry registry;

    private Map<String, Long> counts = Map.of();
    private Instant countedAt = Instant.MIN;

    /** The runtimes-by-status-and-node gauges, one per configured node and status. */
    void registerGauges(@Observes @Initialized(ApplicationScoped.class) Object started) {
        Metadata runtimes = Metadata.builder().withName(DockyardMetrics.RUNTIMES)
                .withDescription("Runtimes by status and node, from the database (at most a second old)").build();
        for (String node : nodes.names()) {
            for (RuntimeStatus status : RuntimeStatus.values()) {
                registry.gauge(runtimes, this, c -> c.count(status, node),
                        new Tag(DockyardMetrics.STATUS, status.name()), new Tag(DockyardMetrics.NODE, node));
            }
        }
    }

    /** Runtimes in {@code status} on {@code node} (runtimes recorded without a node are on the default one). */
    public synchronized long count(RuntimeStatus status, String node) {
        Instant now = clock.instant();
        if (countedAt.plus(FRESH).isBefore(now)) {
            try {
                counts = countAll();
            } catch (RuntimeException e) {
                // a scrape must not fail because the database does: the last counts stand
                LOG.warning("Runtime census skipped, the database cannot be read: " + e.getMessage());
            }
            countedAt = now;
        }
        return counts.getOrDefault(key(status, node), 0L);
    }

    private Map<String, Long> countAll() {
        Map<String, Long> all = new HashMap<>();
        String defaultNode = nodes.defaultNode();
        for (RuntimeRepository.Count row : runtimes.countByStatusAndNode()) {
            String node = row.node() == null ? defaultNode : row.node();
            all.merge(key(row.status(), node), row.runtimes(), Long::sum);
        }
        return all;
    }

    private static String key(RuntimeStatus status, String node) {
        return status.name() + "@" + node;
    }
}
