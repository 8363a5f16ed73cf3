package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.EnumSet;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Pause and resume (API.md): a paused runtime keeps its container, memory and shell, frozen by
 * the backend (Docker's cgroup freezer: no CPU, nothing runs), and answers no actions; resuming
 * thaws it and answers once its executor is ready again. The backend acts first and the status
 * follows, so a PAUSED runtime is frozen, but for a pause whose answer the engine lost (recorded
 * PAUSED, frozen or not: see {@link Freezes}); a pause that loses a race with a stop is undone.
 * Neither runs while a migration holds the runtime ({@link RuntimeGates}): a migration freezes
 * its source itself, and a pause or thaw in between would undo that or be undone by it. A pause
 * records its {@link PauseReason}: only the idle lifecycle's own pauses are undone by an action.
 * On a node that cannot freeze ({@link BackendCapabilities#freezes()}) a pause goes on to hibernate.
 */
@ApplicationScoped
public class PauseResume {

    private static final Logger LOG = Logger.getLogger(PauseResume.class.getName());
    private static final long READY_AGAIN_MS = 10_000;

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    @Inject
    ExecutorClient executors;

    @Inject
    RuntimeGates gates;

    @Inject
    Hibernation hibernation;

    @Inject
    Activity activity;

    /**
     * READY → PAUSED on request; PAUSED or HIBERNATED stays so, from now on as the user's own pause
     * (an action no longer wakes it).
     *
     * @throws RuntimeGates.RuntimeBusyException while the runtime is being migrated
     */
    public SandboxRuntime pause(String runtimeId) {
        try (RuntimeGates.Pass pass = gates.enterLifecycle(runtimeId)) {
            return pauseAdmitted(runtimeId, PauseReason.REQUEST, "Paused on request");
        }
    }

    /**
     * READY → PAUSED for {@code reason}, with the runtime held by the caller; the status message
     * is {@code why} followed by how long the freeze took ("… in 12 ms").
     */
    SandboxRuntime pauseAdmitted(String runtimeId, PauseReason reason, String why) {
        SandboxRuntime runtime = current(runtimeId);
        if (runtime.status() == RuntimeStatus.PAUSED || runtime.status() == RuntimeStatus.HIBERNATED) {
            if (reason == PauseReason.REQUEST && runtime.pauseReason() != PauseReason.REQUEST) {
                // asleep for idleness, now paused by the user too: from here no action wakes it
                return journal.update(runtimeId, r -> r.pausedFor(PauseReason.REQUEST));
            }
            return runtime;
        }
        if (runtime.status() != RuntimeStatus.READY) {
            throw new IllegalTransitionException(runtimeId, runtime.status(), RuntimeStatus.PAUSED);
        }
        RuntimeBackend backend = nodes.on(runtime.node());
        long start = System.nanoTime();
        Freezes.freeze(backend, journal, runtime, "a pause", reason);
        boolean recorded;
        try {
            recorded = journal.transitionIf(runtimeId, EnumSet.of(RuntimeStatus.READY), RuntimeStatus.PAUSED,
                    why + " in " + (System.nanoTime() - start) / 1_000_000 + " ms", r -> r.pausedFor(reason));
        } catch (RuntimeException e) {
            // not recorded (the database did not answer): the runtime is READY, so is its sandbox
            // (the soak's database stop, 2026-11-30: a runtime left READY and frozen, its actions
            // timing out until the reconciler took it for asleep a minute later)
            thawQuietly(backend, runtime.containerName());
            throw e;
        }
        if (!recorded) {
            SandboxRuntime now = current(runtimeId);
            if (now.status() == RuntimeStatus.PAUSED) {
                // a concurrent pause recorded it first: the container is frozen as it should be;
                // asleep (one whose answer was lost), it is the user's own pause from now on
                if (reason == PauseReason.REQUEST && now.pauseReason() != PauseReason.REQUEST) {
                    return journal.update(runtimeId, r -> r.pausedFor(PauseReason.REQUEST));
                }
                return now;
            }
            // it changed meanwhile (stopped, disconnected): do not leave it frozen behind that change
            thawQuietly(backend, runtime.containerName());
            throw new IllegalTransitionException(runtimeId, now.status(), RuntimeStatus.PAUSED);
        }
        if (!backend.capabilities().freezes()) {
            // no freezer on this node (Kubernetes): the paused runtime sleeps hibernated, its
            // sandbox's processes ended and its files kept; resuming is a cold boot
            return hibernation.hibernateHeld(runtimeId, why + "; its node cannot freeze, so it hibernated");
        }
        return current(runtimeId);
    }

    /**
     * PAUSED → READY once the executor answers again; HIBERNATED → READY by a cold boot (see
     * {@link Hibernation}); READY stays READY.
     *
     * @throws RuntimeGates.RuntimeBusyException while the runtime is being migrated
     */
    public SandboxRuntime resume(String runtimeId) {
        try (RuntimeGates.Pass pass = gates.enterLifecycle(runtimeId)) {
            return resumeAdmitted(runtimeId, "Resumed", "Woken by POST /resume");
        }
    }

    /**
     * The same with the runtime held by the caller; the status message opens with {@code resumed}
     * after a pause, with {@code woken} after hibernation.
     */
    SandboxRuntime resumeAdmitted(String runtimeId, String resumed, String woken) {
        SandboxRuntime runtime = current(runtimeId);
        if (runtime.status() == RuntimeStatus.READY) {
            activity.awake(runtimeId);
            return runtime;
        }
        if (runtime.status() == RuntimeStatus.HIBERNATED) {
            return hibernation.wakeHeld(runtime, woken);
        }
        if (runtime.status() != RuntimeStatus.PAUSED) {
            throw new IllegalTransitionException(runtimeId, runtime.status(), RuntimeStatus.READY);
        }
        long start = System.nanoTime();
        RuntimeBackend backend = nodes.on(runtime.node());
        backend.unpause(runtime.containerName());
        URI executor = URI.create(runtime.executorUrl());
        long deadline = System.currentTimeMillis() + READY_AGAIN_MS;
        while (!serving(backend, runtime, executor)) {
            if (System.currentTimeMillis() > deadline) {
                journal.transitionIf(runtimeId, EnumSet.of(RuntimeStatus.PAUSED), RuntimeStatus.ERROR_RUNTIME_DISCONNECTED,
                        "The executor did not answer within " + READY_AGAIN_MS / 1000 + " s of resuming");
                return current(runtimeId);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (journal.transitionIf(runtimeId, EnumSet.of(RuntimeStatus.PAUSED), RuntimeStatus.READY,
                resumed + " in " + (System.nanoTime() - start) / 1_000_000 + " ms")) {
            activity.awake(runtimeId);
            activity.touch(runtimeId);
        }
        return current(runtimeId);
    }

    /** Serving again, through the sandbox's own listener: the session key goes nowhere else. */
    private boolean serving(RuntimeBackend backend, SandboxRuntime runtime, URI executor) {
        try {
            return backend.listensAt(runtime.containerName(), executor) && executors.isServing(runtime, executor);
        } catch (BackendException e) {
            LOG.warning("Runtime " + runtime.id() + " after its resume: " + e.getMessage());
            return false;
        }
    }

    private SandboxRuntime current(String runtimeId) {
        return journal.find(runtimeId).orElseThrow(() -> new IllegalStateException("runtime " + runtimeId + " vanished"));
    }

    private static void thawQuietly(RuntimeBackend backend, String name) {
        try {
            backend.unpause(name);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "thawing " + name, e);
        }
    }
}
