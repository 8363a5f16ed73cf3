package dev.dockyard.observability;

import dev.dockyard.protocol.ActionType;
import dev.dockyard.protocol.SecurityRisk;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Dockyard's application metrics (docs/operations.md "Metrics" lists them). The services call one method per
 * event; the registry turns names like {@code dockyard.actions} into Prometheus'
 * {@code dockyard_actions_total}. Timers are Prometheus summaries (count, sum, max, quantiles) and,
 * where {@code mp.metrics.distribution.timer.buckets} names them, histograms.
 *
 * <p>An instance without a registry ({@link #unrecorded()}) records nothing: what unit tests of the
 * services get when they do not look at metrics.
 *
 * <p>Labels taken from the domain's enums arrive as {@code Enum<?>} (their constants are closed sets),
 * so that this class, which the domain's services call, imports none of them: the domain depends on
 * its metrics, not the other way round. The runtimes-by-status gauges, which read the database,
 * are {@code observability.census}'s.
 */
@ApplicationScoped
public class DockyardMetrics {

    public static final String PROVISIONING_STEP = "dockyard.provisioning.step";
    public static final String READY = "dockyard.runtime.ready";
    public static final String ACTION_ROUND_TRIP = "dockyard.action.round.trip";
    public static final String ACTIONS = "dockyard.actions";
    public static final String QUOTA_REFUSALS = "dockyard.quota.refusals";
    public static final String RECONCILER_PASSES = "dockyard.reconciler.passes";
    public static final String RECONCILER_CHANGES = "dockyard.reconciler.changes";
    public static final String IMAGE_BUILDS = "dockyard.image.builds";
    public static final String POOL_CLAIMS = "dockyard.pool.claims";
    public static final String POOL_READY = "dockyard.pool.ready";
    public static final String RUNTIMES = "dockyard.runtimes";

    public static final String STEP = "step";
    public static final String PATH = "path";
    public static final String TYPE = "type";
    public static final String RISK = "risk";
    public static final String DECISION = "decision";
    public static final String LIMIT = "limit";
    public static final String OUTCOME = "outcome";
    public static final String KIND = "kind";
    public static final String POOL = "pool";
    public static final String STATUS = "status";
    public static final String NODE = "node";

    /** The value of a label whose input is not in its closed set. */
    public static final String OTHER = "other";

    /** How a runtime became READY. */
    public enum ReadyPath { COLD, WARM, MIGRATION }

    /** What a reconciler pass changed, one counter label per kind. */
    public record ReconcilerChanges(int orphansRemoved, int interruptedFailed, int disconnected, int reconnected,
                                    int released) {
    }

    private static final Set<String> QUOTA_LIMITS = Set.of("maxRuntimes", "maxCpus", "maxMemoryMb");

    @Inject
    MetricRegistry registry;

    /** The per-action metrics, looked up in the registry once (nothing here removes metrics from it). */
    private final Map<String, Timer> actionTimers = new ConcurrentHashMap<>();
    private final Map<String, Counter> decisions = new ConcurrentHashMap<>();

    /** Records nothing: for services built by hand in unit tests. */
    public static DockyardMetrics unrecorded() {
        return new DockyardMetrics();
    }

    /** How long one provisioning step ({@code runtime.provisioning.ProvisioningStep}) took. */
    public void provisioningStep(Enum<?> step, Duration took) {
        if (registry == null) {
            return;
        }
        registry.timer(Metadata.builder().withName(PROVISIONING_STEP)
                .withDescription("Duration of each provisioning step").build(), new Tag(STEP, lowerCase(step)))
                .update(took);
    }

    public void ready(ReadyPath path, Duration took) {
        if (registry == null) {
            return;
        }
        registry.timer(Metadata.builder().withName(READY)
                .withDescription("Time from the provisioning request to READY").build(),
                new Tag(PATH, path.name().toLowerCase())).update(took);
    }

    /** One action's round trip through the control plane, whatever its outcome. */
    public void action(ActionType type, Duration took) {
        if (registry == null) {
            return;
        }
        String typeName = type == null ? OTHER : type.wireName();
        // every action passes here: the registry's lookup (metadata built, tags sorted and hashed) once per type
        actionTimers.computeIfAbsent(typeName, t -> registry.timer(Metadata.builder().withName(ACTION_ROUND_TRIP)
                .withDescription("Round trip of an action through the control plane, by action type").build(),
                new Tag(TYPE, t))).update(took);
    }

    /** The security analyser's rating of an action and the policy's decision on it ({@code audit.AuditEntry.Decision}). */
    public void decided(SecurityRisk risk, Enum<?> decision) {
        if (registry == null) {
            return;
        }
        String riskName = risk == null ? OTHER : risk.name();
        String decisionName = decision == null ? OTHER : decision.name();
        decisions.computeIfAbsent(riskName + "/" + decisionName, k -> registry.counter(Metadata.builder()
                .withName(ACTIONS).withDescription("Actions by security risk and policy decision").build(),
                new Tag(RISK, riskName), new Tag(DECISION, decisionName))).inc();
    }

    public void quotaRefused(String limit) {
        if (registry == null) {
            return;
        }
        registry.counter(Metadata.builder().withName(QUOTA_REFUSALS)
                .withDescription("Provisionings refused by a user's quota, by limit").build(),
                new Tag(LIMIT, closed(limit, QUOTA_LIMITS))).inc();
    }

    /** One reconciler pass: completed (with what it changed) or skipped (the database or a node unreadable). */
    public void reconciled(boolean skipped, ReconcilerChanges changes) {
        if (registry == null) {
            return;
        }
        registry.counter(Metadata.builder().withName(RECONCILER_PASSES)
                .withDescription("Reconciler passes by outcome").build(),
                new Tag(OUTCOME, skipped ? "skipped" : "completed")).inc();
        Metadata changed = Metadata.builder().withName(RECONCILER_CHANGES)
                .withDescription("What reconciler passes removed or repaired, by kind").build();
        registry.counter(changed, new Tag(KIND, "orphan_removed")).inc(changes.orphansRemoved());
        registry.counter(changed, new Tag(KIND, "interrupted_failed")).inc(changes.interruptedFailed());
        registry.counter(changed, new Tag(KIND, "disconnected")).inc(changes.disconnected());
        registry.counter(changed, new Tag(KIND, "reconnected")).inc(changes.reconnected());
        registry.counter(changed, new Tag(KIND, "released")).inc(changes.released());
    }

    /** One runtime image build, by the path it took ({@code images.ImageBuild.Path}). */
    public void imageBuild(Enum<?> path) {
        if (registry == null) {
            return;
        }
        registry.counter(Metadata.builder().withName(IMAGE_BUILDS)
                .withDescription("Runtime image builds by reuse path (cached: nothing built)").build(),
                new Tag(PATH, lowerCase(path))).inc();
    }

    /** A claim on a warm pool: a hit took a warm sandbox, a miss found none. */
    public void poolClaim(String pool, boolean hit) {
        if (registry == null) {
            return;
        }
        registry.counter(Metadata.builder().withName(POOL_CLAIMS)
                .withDescription("Warm pool claims by pool and outcome (hit, miss)").build(),
                new Tag(POOL, pool), new Tag(OUTCOME, hit ? "hit" : "miss")).inc();
    }

    /**
     * The ready-sandboxes gauge of each declared pool (registering again is a no-op); pool names are
     * the administrator's identifiers, checked when the pool is declared.
     */
    public <T> void pools(Iterable<String> names, T pools, ToLongFunction<String> ready) {
        if (registry == null) {
            return;
        }
        Metadata metadata = Metadata.builder().withName(POOL_READY)
                .withDescription("Warm sandboxes ready to be claimed, by pool").build();
        for (String name : names) {
            registry.gauge(metadata, pools, p -> ready.applyAsLong(name), new Tag(POOL, name));
        }
    }

    /** An enum constant's name in lower case (its own closed set), {@link #OTHER} for none. */
    private static String lowerCase(Enum<?> value) {
        return value == null ? OTHER : value.name().toLowerCase(Locale.ROOT);
    }

    /** {@code value} if it is one of {@code allowed}, else {@link #OTHER}. */
    static String closed(String value, Set<String> allowed) {
        return value != null && allowed.contains(value) ? value : OTHER;
    }
}
