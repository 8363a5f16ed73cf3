package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import java.util.EnumSet;

/**
 * Freezing a READY runtime's sandbox while its engine may stop answering mid-call. A READY runtime
 * whose sandbox is frozen cannot run anything: every action waits out its timeout on an executor
 * that cannot answer, until the reconciler has seen the freeze for a minute. So when the engine's
 * answer to a freeze is lost (it may have frozen the sandbox; the soak's node cut, 2026-12-01
 * 00:59, left a runtime so and an action waited 150 s) or a thaw fails, the runtime is recorded
 * PAUSED at once. A pause on request is recorded asleep, as an idle pause leaves it: its caller was
 * answered a failure (a 503), so it may go on acting, and the next action resumes it; one that
 * retries the pause through {@code /api/v1} finds it paused, and from then on paused on request
 * (the soak of 2026-12-01 03:45: a pause on request whose answer was lost stayed paused under an
 * agent that had moved on, its actions refused until the end). The idle lifecycle's own pauses,
 * which no caller waits for, keep their reason (an end time's pause is not woken by an action).
 * A resume thaws a frozen sandbox and finds one the engine never froze running, as it is; such a
 * PAUSED runtime with a running sandbox is the price of not knowing, until it is resumed or the
 * reconciler, seeing it so for a minute, freezes it again.
 */
public final class Freezes {

    private Freezes() {
    }

    /**
     * Freezes the runtime's sandbox for {@code doing} ("a pause") for {@code reason}; an engine that
     * did not answer is the caller's failure still, after the runtime was recorded PAUSED (asleep,
     * for a pause on request).
     */
    public static void freeze(RuntimeBackend backend, ProvisioningJournal journal, SandboxRuntime runtime,
                              String doing, PauseReason reason) {
        try {
            backend.pause(runtime.containerName());
        } catch (EngineUnreachableException e) {
            PauseReason recorded = reason == PauseReason.REQUEST ? PauseReason.IDLE : reason;
            record(journal, runtime, e, recorded, "Frozen for " + doing + " with no answer from the engine ("
                    + e.getMessage() + "), so perhaps frozen: recorded as paused"
                    + (recorded == PauseReason.IDLE ? "; the next action resumes it" : ""));
            throw e;
        }
    }

    /** Thaws the runtime's sandbox after {@code doing}; a thaw that failed is the caller's, the runtime recorded asleep. */
    public static void thaw(RuntimeBackend backend, ProvisioningJournal journal, SandboxRuntime runtime,
                            String doing) {
        try {
            backend.unpause(runtime.containerName());
        } catch (RuntimeException e) {
            record(journal, runtime, e, PauseReason.IDLE, "Frozen for " + doing + " and not thawed (" + e.getMessage()
                    + "): recorded as paused; the next action resumes it");
            throw e;
        }
    }

    private static void record(ProvisioningJournal journal, SandboxRuntime runtime, RuntimeException failure,
                               PauseReason reason, String message) {
        try {
            journal.transitionIf(runtime.id(), EnumSet.of(RuntimeStatus.READY), RuntimeStatus.PAUSED, message,
                    r -> r.pausedFor(reason));
        } catch (RuntimeException recording) {
            // the database did not answer either: the reconciler finds the frozen sandbox later
            failure.addSuppressed(recording);
        }
    }
}
