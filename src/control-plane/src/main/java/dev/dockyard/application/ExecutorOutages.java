package dev.dockyard.application;

import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient.ExecutorUnreachableException;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;

/**
 * What a request answers when a sandbox's executor cannot be reached. A connection refused, or
 * closed with no answer, means the executor's process is gone (killed or crashed, its container
 * stopping with it) or starting again: the runtime is being recovered, not broken, so the caller
 * gets a 503 with {@code Retry-After} and the reconciler is asked for a pass now, which finds the
 * stopped sandbox and starts it again seconds sooner than its next tick would. An executor that
 * took the request and did not answer in time stays a 502.
 */
@ApplicationScoped
public class ExecutorOutages {

    /** Seconds a caller is asked to wait: a sandbox started again answers in about one. */
    static final int RETRY_AFTER_SECONDS = 2;

    @Inject
    Event<SandboxUnanswered> unanswered;

    /** Without a reconciler to tell (unit tests): the answers only. */
    public static ExecutorOutages unobserved() {
        return new ExecutorOutages();
    }

    /** The refusal for the caller; tells the reconciler when the executor is gone. */
    public Refused refusal(SandboxRuntime runtime, ExecutorUnreachableException e) {
        if (!e.executorGone()) {
            return new Refused(Refused.Reason.EXECUTOR_FAILED, e.getMessage());
        }
        if (unanswered != null) {
            unanswered.fireAsync(new SandboxUnanswered(runtime.id()));
        }
        return new Refused(Refused.Reason.EXECUTOR_UNAVAILABLE, "The sandbox's executor is not answering (its "
                + "process is gone or starting again; a request it had taken may have run in part); Dockyard is "
                + "recovering the runtime: retry in a few seconds")
                .retryAfter(RETRY_AFTER_SECONDS);
    }

    /**
     * The refusal of a pause or snapshot that found the sandbox stopped (its executor exited and took
     * the sandbox's main process with it): the same recovery, asked for now.
     */
    public Refused stopped(String runtimeId, String doing) {
        if (unanswered != null) {
            unanswered.fireAsync(new SandboxUnanswered(runtimeId));
        }
        return new Refused(Refused.Reason.EXECUTOR_UNAVAILABLE, "Runtime " + runtimeId + " could not be " + doing
                + ": its sandbox has stopped (its executor exited); Dockyard is starting it again: retry in a few "
                + "seconds").retryAfter(RETRY_AFTER_SECONDS);
    }

    /** The refusal of a pause or snapshot whose freeze the kernel could not finish in time: nothing changed. */
    public static Refused tooBusyToFreeze(String runtimeId, String doing, SandboxBusyException e) {
        return new Refused(Refused.Reason.CONFLICT, "Runtime " + runtimeId + " could not be " + doing + " now: "
                + e.getMessage() + "; retry in a moment").retryAfter(1);
    }
}
