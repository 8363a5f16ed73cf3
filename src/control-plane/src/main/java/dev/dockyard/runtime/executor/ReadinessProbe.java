package dev.dockyard.runtime.executor;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.temporal.ChronoUnit;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * Waits for a sandbox's executor to answer {@code GET /ready}. MicroProfile Fault Tolerance does
 * the retrying (a short fixed delay; a refused connection costs microseconds and the executor
 * boots in about a second). The probe itself enforces the runtime's own timeout and, every few
 * tries, asks the backend whether the sandbox died, so a crashed start fails fast with its log.
 */
@ApplicationScoped
public class ReadinessProbe {

    @Inject
    ExecutorClient executors;

    /** Returns once ready; throws {@link SandboxNotReadyException} when it never will be. */
    @Retry(maxRetries = -1, delay = 20, delayUnit = ChronoUnit.MILLIS, jitter = 0,
            maxDuration = 60, durationUnit = ChronoUnit.MINUTES,
            retryOn = NotReadyYetException.class, abortOn = SandboxNotReadyException.class)
    public void probe(ReadinessAttempt attempt) {
        attempt.nextTry();
        try {
            // the session key goes only to the sandbox's own executor (BackendException: another process took its port)
            boolean ready = attempt.anyHttpAnswer() ? executors.answersHttp(attempt.executor())
                    : attempt.backend().listensAt(attempt.sandboxName(), attempt.executor())
                    && executors.isReady(attempt.executor(), attempt.sessionKey());
            if (ready) {
                return;
            }
        } catch (ExecutorClient.PluginFailedException | BackendException e) {
            throw new SandboxNotReadyException(e.getMessage());
        }
        if (attempt.expired()) {
            throw new SandboxNotReadyException((attempt.anyHttpAnswer() ? "its main port did not answer HTTP"
                    : "the executor was not ready") + " within " + attempt.timeout().toSeconds()
                    + " s" + describe(attempt.backend().inspect(attempt.sandboxName())));
        }
        if (attempt.timeToInspect()) {
            SandboxState state = attempt.backend().inspect(attempt.sandboxName());
            if (state.isGone()) {
                throw new SandboxNotReadyException("the sandbox stopped before it was ready" + describe(state));
            }
        }
        throw new NotReadyYetException();
    }

    private static String describe(SandboxState state) {
        return switch (state.phase()) {
            case MISSING -> " (the container is gone)";
            case EXITED -> " (container exited with code " + state.exitCode() + ")"
                    + (state.logTail().isBlank() ? "" : "; its last output:\n" + state.logTail());
            default -> " (container " + state.phase().name().toLowerCase() + ")";
        };
    }

    /** Not ready on this try; Fault Tolerance tries again. */
    public static class NotReadyYetException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotReadyYetException() {
            super("not ready yet", null, false, false);
        }
    }

    /** Will not become ready: give up. */
    public static class SandboxNotReadyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SandboxNotReadyException(String message) {
            super(message);
        }
    }
}
