package dev.dockyard.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.audit.AuditEntry;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.protocol.ActionType;
import dev.dockyard.protocol.SecurityRisk;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;
import org.junit.jupiter.api.Test;

/**
 * What the services' calls record, against a registry that keeps counters and timer observations
 * by name and tags (the real one is Liberty's, exercised by MetricsIT).
 */
class DockyardMetricsTest {

    /** Counter totals and timer observations by "name{tags}". */
    private final Map<String, Long> counts = new ConcurrentHashMap<>();
    private final Map<String, List<Duration>> timings = new ConcurrentHashMap<>();
    private final DockyardMetrics metrics = new DockyardMetrics();

    DockyardMetricsTest() {
        metrics.registry = (MetricRegistry) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {MetricRegistry.class}, (proxy, method, args) -> {
                    String key = key(args);
                    return switch (method.getName()) {
                        case "counter" -> Proxy.newProxyInstance(getClass().getClassLoader(),
                                new Class<?>[] {Counter.class}, (c, m, a) -> {
                                    counts.merge(key, a == null ? 1L : (Long) a[0], Long::sum);
                                    return null;
                                });
                        case "timer" -> Proxy.newProxyInstance(getClass().getClassLoader(),
                                new Class<?>[] {Timer.class}, (t, m, a) -> {
                                    timings.computeIfAbsent(key, k -> new ArrayList<>()).add((Duration) a[0]);
                                    return null;
                                });
                        default -> throw new UnsupportedOperationException(method.getName());
                    };
                });
    }

    private static String key(Object[] args) {
        String name = args[0] instanceof Metadata m ? m.getName() : (String) args[0];
        Map<String, String> tags = new TreeMap<>();
        Arrays.stream(args).filter(Tag[].class::isInstance).flatMap(a -> Arrays.stream((Tag[]) a))
                .forEach(t -> tags.put(t.getTagName(), t.getTagValue()));
        return name + tags;
    }

    /**
     * The step label of the metric is the step's constant in lower case (the metrics bean takes
     * the enum, not its label, so that it imports none of the domain): the labels errors and
     * {@code ProvisioningStep.byLabel} use must be the same words.
     */
    @Test
    void shouldLabelEveryProvisioningStepAsItsErrorsDo() {
        for (ProvisioningStep step : ProvisioningStep.values()) {
            assertEquals(step.label(), step.name().toLowerCase(Locale.ROOT), step.name());
        }
    }

    @Test
    void shouldTimeActionsByTheirProtocolType() {
        metrics.action(ActionType.RUN, Duration.ofMillis(12));
        metrics.action(ActionType.RUN, Duration.ofMillis(30));
        metrics.action(ActionType.READ, Duration.ofMillis(4));

        assertEquals(List.of(Duration.ofMillis(12), Duration.ofMillis(30)), timings.get("dockyard.action.round.trip{type=run}"));
        assertEquals(List.of(Duration.ofMillis(4)), timings.get("dockyard.action.round.trip{type=read}"));
    }

    @Test
    void shouldCountDecisionsByRiskAndDecision() {
        metrics.decided(SecurityRisk.HIGH, AuditEntry.Decision.AWAITING_CONFIRMATION);
        metrics.decided(SecurityRisk.HIGH, AuditEntry.Decision.AWAITING_CONFIRMATION);
        metrics.decided(SecurityRisk.LOW, AuditEntry.Decision.ALLOWED);

        assertEquals(2L, counts.get("dockyard.actions{decision=AWAITING_CONFIRMATION, risk=HIGH}"));
        assertEquals(1L, counts.get("dockyard.actions{decision=ALLOWED, risk=LOW}"));
    }

    @Test
    void shouldMapAnUnknownQuotaLimitToOther() {
        metrics.quotaRefused("maxCpus");
        metrics.quotaRefused("Quota exceeded for alice: sk-secret");
        metrics.quotaRefused(null);

        assertEquals(1L, counts.get("dockyard.quota.refusals{limit=maxCpus}"));
        assertEquals(2L, counts.get("dockyard.quota.refusals{limit=other}"));
    }

    @Test
    void shouldCountAReconcilerPassAndWhatItChangedByKind() {
        metrics.reconciled(false, new DockyardMetrics.ReconcilerChanges(2, 1, 0, 0, 3));
        metrics.reconciled(true, new DockyardMetrics.ReconcilerChanges(0, 0, 0, 0, 0));

        assertEquals(1L, counts.get("dockyard.reconciler.passes{outcome=completed}"));
        assertEquals(1L, counts.get("dockyard.reconciler.passes{outcome=skipped}"));
        assertEquals(2L, counts.get("dockyard.reconciler.changes{kind=orphan_removed}"));
        assertEquals(1L, counts.get("dockyard.reconciler.changes{kind=interrupted_failed}"));
        assertEquals(3L, counts.get("dockyard.reconciler.changes{kind=released}"));
        assertEquals(0L, counts.get("dockyard.reconciler.changes{kind=disconnected}"));
    }

    @Test
    void shouldLabelStepsReadyPathsBuildsAndPoolClaimsFromTheirClosedSets() {
        metrics.provisioningStep(ProvisioningStep.READINESS, Duration.ofMillis(1500));
        metrics.ready(DockyardMetrics.ReadyPath.WARM, Duration.ofMillis(40));
        metrics.imageBuild(ImageBuild.Path.LOCK);
        metrics.poolClaim("small", true);
        metrics.poolClaim("small", false);

        assertEquals(List.of(Duration.ofMillis(1500)), timings.get("dockyard.provisioning.step{step=readiness}"));
        assertEquals(List.of(Duration.ofMillis(40)), timings.get("dockyard.runtime.ready{path=warm}"));
        assertEquals(1L, counts.get("dockyard.image.builds{path=lock}"));
        assertEquals(1L, counts.get("dockyard.pool.claims{outcome=hit, pool=small}"));
        assertEquals(1L, counts.get("dockyard.pool.claims{outcome=miss, pool=small}"));
    }

    @Test
    void shouldRecordNothingWithoutARegistry() {
        DockyardMetrics unrecorded = DockyardMetrics.unrecorded();
        unrecorded.action(ActionType.RUN, Duration.ofMillis(1));
        unrecorded.decided(SecurityRisk.LOW, AuditEntry.Decision.ALLOWED);
        unrecorded.reconciled(false, new DockyardMetrics.ReconcilerChanges(1, 0, 0, 0, 0));
        assertTrue(counts.isEmpty() && timings.isEmpty());
    }
}
