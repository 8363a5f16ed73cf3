package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.credentials.CredentialException;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.runtime.executor.ReadinessProbe;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Supplier;
import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;

/**
 * Runs the steps of one provisioning, turning their failures into {@link StepFailedException}s
 * and keeping their durations: the READY message says where the time went, e.g.
 * "Ready in 1840 ms (create 45, start 170, readiness 1610, limits 15)".
 */
final class StepTimer {

    private final long startNanos = System.nanoTime();
    private final Map<ProvisioningStep, Long> millis = new LinkedHashMap<>();
    private final ProvisioningStep failAt;
    private final DockyardMetrics metrics;

    /** @param failAt a step to fail on purpose before it runs (fault injection), or null */
    StepTimer(ProvisioningStep failAt, DockyardMetrics metrics) {
        this.failAt = failAt;
        this.metrics = metrics;
    }

    <T> T time(ProvisioningStep step, Supplier<T> action) {
        long start = System.nanoTime();
        try {
            inject(step);
            return action.get();
        } catch (BackendException | ReadinessProbe.SandboxNotReadyException
                 | CredentialException | ImageBuildException e) {
            throw new StepFailedException(step, e.getMessage(), e);
        } catch (FaultToleranceException e) {
            throw new StepFailedException(step, "gave up waiting: " + e.getMessage(), e);
        } catch (TransactionalException | PersistenceException e) {
            throw new StepFailedException(step, "the database refused the record (" + e + ")", e);
        } finally {
            took(step, System.nanoTime() - start);
        }
    }

    /**
     * Fails {@code step} on purpose if it is the one to fail (fault injection), as {@link #time}
     * does: for a step that ends on another thread than it began, which records it with {@link #took}.
     */
    void inject(ProvisioningStep step) {
        if (step == failAt && step != ProvisioningStep.RECORD) {
            throw new StepFailedException(step, "fault injected at step '" + step.label() + "'",
                    new BackendException("fault injected"));
        }
    }

    /** Records how long {@code step} took. */
    void took(ProvisioningStep step, long nanos) {
        millis.put(step, nanos / 1_000_000);
        metrics.provisioningStep(step, Duration.ofNanos(nanos));
    }

    /** Since the timer was made, i.e. since provisioning began. */
    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    String summary() {
        StringJoiner steps = new StringJoiner(", ", "(", ")");
        millis.forEach((step, ms) -> steps.add(step.label() + " " + ms));
        return "in " + (System.nanoTime() - startNanos) / 1_000_000 + " ms " + steps;
    }
}
