package dev.dockyard.application;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ExecutorClient.ExecutorUnreachableException;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;

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

    /** How often a wait for a recovery looks at the runtime again. */
    private static final long LOOK_EVERY_MS = 250;

    @Inject
    ProvisioningJournal journal;

    @Inject
    ExecutorClient executors;

    /** Where sandboxes run, asked where an executor publishes before it is probed (none in unit tests). */
    @Inject
    BackendNodes nodes;

    /** Without a reconciler to tell (unit tests): the answers only. */
    public static ExecutorOutages unobserved() {
        return new ExecutorOutages();
    }

    /** The refusal for the caller; tells the reconciler when the executor is gone. */
    public Refused refusal(SandboxRuntime runtime, ExecutorUnreachableException e) {
        if (!e.executorGone()) {
            return new Refused(Refused.Reason.EXECUTOR_FAILED, e.getMessage());
        }
        askForARecovery(runtime.id());
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
        askForARecovery(runtimeId);
        return new Refused(Refused.Reason.EXECUTOR_UNAVAILABLE, "Runtime " + runtimeId + " could not be " + doing
                + ": its sandbox has stopped (its executor exited); Dockyard is starting it again: retry in a few "
                + "seconds").retryAfter(RETRY_AFTER_SECONDS);
    }

    /**
     * The refusal of an action for a READY runtime whose sandbox does not serve at its address now:
     * it stopped (an engine restart) or is frozen by work that was cut off. The reconciler is asked
     * for a pass: it starts a stopped sandbox again, and records one frozen for long PAUSED, asleep.
     */
    public Refused notServing(String runtimeId) {
        askForARecovery(runtimeId);
        return new Refused(Refused.Reason.EXECUTOR_UNAVAILABLE, "Runtime " + runtimeId + " cannot be reached: its "
                + "sandbox does not serve at its address now (it stopped, or is frozen by work that was cut off); "
                + "Dockyard is recovering it: retry in a few seconds").retryAfter(RETRY_AFTER_SECONDS);
    }

    /**
     * How long an executor's server error is watched for its sandbox going: an engine that stops
     * its containers (a restart) ends the executor's shell a moment before its server, which
     * answers the request it held with a {@code 500} as it goes.
     */
    static final Duration STOPPING_WATCH = Duration.ofSeconds(2);

    /**
     * The refusal of an executor's own server error ({@code status} 5xx): the outage's {@code 503}
     * with {@code Retry-After} when its sandbox stops serving within {@link #STOPPING_WATCH} (the
     * soak of 2026-12-02 00:54: an action and a read answered {@code 502} "The executor answered
     * 500" as the engine restarted), else the executor's failure, a {@code 502}.
     */
    public Refused serverError(SandboxRuntime runtime, int status, String detail) {
        if (executors != null && runtime.status() == RuntimeStatus.READY && runtime.executorUrl() != null) {
            long deadline = System.nanoTime() + STOPPING_WATCH.toNanos();
            while (serving(runtime)) {
                if (System.nanoTime() >= deadline) {
                    return failed(status, detail);
                }
                try {
                    Thread.sleep(LOOK_EVERY_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return failed(status, detail);
                }
            }
            return notServing(runtime.id());
        }
        return failed(status, detail);
    }

    private static Refused failed(int status, String detail) {
        return new Refused(Refused.Reason.EXECUTOR_FAILED, "The executor answered " + status + ": " + detail);
    }

    /** Asks the reconciler for a pass over the runtime now, rather than at its next tick. */
    private void askForARecovery(String runtimeId) {
        if (unanswered != null) {
            unanswered.fireAsync(new SandboxUnanswered(runtimeId));
        }
    }

    /** The refusal of a pause or snapshot whose freeze the kernel could not finish in time: nothing changed. */
    public static Refused tooBusyToFreeze(String runtimeId, String doing, SandboxBusyException e) {
        return new Refused(Refused.Reason.CONFLICT, "Runtime " + runtimeId + " could not be " + doing + " now: "
                + e.getMessage() + "; retry in a moment").retryAfter(1);
    }

    /**
     * Whether the runtime is being recovered: disconnected while the reconciler starts its stopped
     * sandbox again (or waits for its node), or READY with its sandbox's server gone, which the
     * reconciler has not seen yet. Asks the sandbox when READY: for rare requests only.
     */
    public boolean recovering(SandboxRuntime runtime) {
        if (runtime.status() == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
            return true;
        }
        return runtime.status() == RuntimeStatus.READY && !serving(runtime);
    }

    /**
     * Waits, up to {@code limit}, for a runtime being recovered to serve again, having asked the
     * reconciler for a pass now: what OpenHands' clients mean by a resume after the runtime's URL
     * answered {@code 503} (they then poll the runtime until it is ready, check it is alive and
     * send their request again). Keep the limit below their own for the resume's answer (10 s).
     *
     * @return the runtime as it is at the end: READY and serving, still being recovered (the limit
     *         passed), or what the recovery made of it (PAUSED, ERROR)
     */
    public SandboxRuntime awaitRecovered(String runtimeId, Duration limit) {
        askForARecovery(runtimeId);
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            SandboxRuntime now = journal.find(runtimeId).orElseThrow(() ->
                    new Refused(Refused.Reason.NOT_FOUND, "Runtime " + runtimeId + " does not exist"));
            if (!recovering(now) || System.nanoTime() > deadline) {
                return now;
            }
            try {
                Thread.sleep(LOOK_EVERY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return now;
            }
        }
    }

    private boolean serving(SandboxRuntime runtime) {
        if (runtime.executorUrl() == null) {
            return true;
        }
        URI executor = URI.create(runtime.executorUrl());
        try {
            // the probe carries the session key: only where the sandbox publishes now, and it is asked
            // exactly when the sandbox may have stopped and its port gone to anyone
            if (nodes != null && !nodes.on(runtime.node()).listensAt(runtime.containerName(), executor)) {
                return false;
            }
        } catch (BackendException e) {
            return false;
        }
        return executors.isServing(runtime, executor);
    }
}
