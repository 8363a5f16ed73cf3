package dev.dockyard.application.runtimes;

import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.Activity;
import dev.dockyard.runtime.lifecycle.IdleLifecycle;
import dev.dockyard.runtime.RuntimeGates;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.function.Function;

/**
 * The one rule every use case that reaches into a sandbox shares: READY, and not being migrated.
 * Admission goes through the runtime's gate ({@link RuntimeGates}) and is held while the work
 * runs, so a migration cannot start between the check and the work, and waits for it to end.
 *
 * <p>A runtime the idle lifecycle put to sleep (paused for idleness, or hibernated) is woken
 * here, transparently: the work then goes to the woken runtime ({@link Admitted#runtime()}, its
 * executor may have a new address). One whose node paused it behind this control plane's back
 * (a remote node's idle lifecycle) is READY here: the work is sent, the node's refusal (a 503
 * before anything ran) resumes it there and the work goes once more
 * ({@link Admitted#resumedAfterRefusal}), so an awake runtime costs no call to its node; work that
 * cannot be sent twice asks the node first ({@link Admitted#awaken}). Every admission and its end
 * count as activity (in memory).
 */
@ApplicationScoped
public class ReadyRuntimes {

    @Inject
    RuntimeGates gates;

    @Inject
    Activity activity;

    @Inject
    IdleLifecycle idle;

    @Inject
    BackendNodes nodes;

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    /** An admission: the pass to hold while the work runs, and the runtime to do it in. */
    public static final class Admitted implements RuntimeGates.Pass {
        private final RuntimeGates.Pass pass;
        private final SandboxRuntime runtime;
        private final Activity activity;
        private final RuntimeBackend backend;

        Admitted(RuntimeGates.Pass pass, SandboxRuntime runtime, Activity activity, RuntimeBackend backend) {
            this.pass = pass;
            this.runtime = runtime;
            this.activity = activity;
            this.backend = backend;
        }

        /** The runtime as admitted: READY, woken if it slept. */
        public SandboxRuntime runtime() {
            return runtime;
        }

        /**
         * Before work that cannot be sent twice (an upload's body): lets the backend resume a
         * sandbox its node paused behind this control plane's back (a remote node's; one call
         * there, nothing on the others).
         *
         * @throws Refused when the node could not resume it
         */
        public void awaken() {
            try {
                backend.awaken(runtime.containerName());
            } catch (RuntimeException e) {
                throw notResumed(e);
            }
        }

        /**
         * After the executor answered {@code status}: whether it was the 503 of a sandbox its
         * node paused behind this control plane's back, now resumed, so that the work (which was
         * not done) is sent once more. False for any other answer, and on backends whose sandboxes
         * only this control plane pauses.
         *
         * @throws Refused when the node could not resume it
         */
        public boolean resumedAfterRefusal(int status) {
            if (status != 503) {
                return false;
            }
            try {
                return backend.awakenAfterRefusal(runtime.containerName());
            } catch (RuntimeException e) {
                throw notResumed(e);
            }
        }

        private Refused notResumed(RuntimeException e) {
            String detail = "Runtime " + runtime.id() + " could not be resumed on its node: " + e.getMessage();
            return e instanceof BackendException backendFailure ? Refused.ofBackend(backendFailure, detail)
                    : new Refused(Refused.Reason.BACKEND_FAILED, detail);
        }

        @Override
        public void close() {
            // a long action counts as activity until it ends
            activity.touch(runtime.id());
            pass.close();
        }
    }

    /**
     * Admits an action or transfer into the runtime, waking it first if the idle lifecycle put it
     * to sleep; the pass is held until the work is done.
     *
     * @throws Refused when the runtime is being migrated or is not READY (a runtime the user paused
     *                 is not woken: it answers PAUSED, as before)
     */
    public Admitted admit(SandboxRuntime runtime) {
        String id = runtime.id();
        if (runtime.program().isPresent()) {
            // its own server, not Dockyard's executor: its clients talk to it through its service URL
            throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " runs its image's own program, "
                    + "not Dockyard's executor: reach it through its service URL (the Remote Runtime API's url)");
        }
        SandboxRuntime current = runtime;
        boolean woken = false;
        while (true) {
            RuntimeGates.Pass pass = enter(id, gates::enterAction);
            if (current.status() == RuntimeStatus.READY && current.executorUrl() != null && !activity.isAsleep(id)) {
                activity.touch(id);
                return admitted(pass, current);
            }
            pass.close();
            boolean asleep = activity.isAsleep(id) || current.status() == RuntimeStatus.PAUSED
                    || current.status() == RuntimeStatus.HIBERNATED;
            if (woken || !asleep) {
                throw notReady(current);
            }
            current = wake(id);
            woken = true;
        }
    }

    /**
     * The admission, once the backend says the executor's address is still the sandbox's own: the
     * work carries the session key there (a local sandbox's port may have changed hands once its
     * executor exited).
     */
    private Admitted admitted(RuntimeGates.Pass pass, SandboxRuntime runtime) {
        RuntimeBackend backend;
        BackendException refusal;
        boolean listens;
        try {
            backend = nodes.on(runtime.node());
            listens = backend.listensAt(runtime.containerName(), URI.create(runtime.executorUrl()));
            refusal = null;
        } catch (BackendException e) {
            backend = null;
            listens = false;
            refusal = e;
        } catch (RuntimeException e) {
            pass.close();
            throw e;
        }
        if (refusal == null && !listens) {
            // gone from its address (its sandbox stopped, its engine restarted) or frozen: being recovered
            pass.close();
            throw outages.notServing(runtime.id());
        }
        if (refusal != null) {
            pass.close();
            // an engine that does not answer is a 503 with Retry-After, as everywhere
            throw Refused.ofBackend(refusal, "Runtime " + runtime.id() + " cannot be reached: " + refusal.getMessage());
        }
        return new Admitted(pass, runtime, activity, backend);
    }

    private SandboxRuntime wake(String id) {
        try {
            return enter(id, idle::wakeForAction);
        } catch (SandboxNotRunningException e) {
            // asleep, and its sandbox stopped meanwhile (its engine restarted): being recovered
            throw outages.stopped(id, "woken");
        } catch (BackendException e) {
            throw Refused.ofBackend(e, "Runtime " + id + " could not be woken: " + e.getMessage());
        }
    }

    private static <T> T enter(String id, Function<String, T> gate) {
        try {
            return gate.apply(id);
        } catch (RuntimeGates.RuntimeBusyException e) {
            if (e.migrating()) {
                throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated to another "
                        + "node; its workspace is being copied, so it takes no actions until the move ends");
            }
            throw new Refused(Refused.Reason.CONFLICT, e.getMessage());
        }
    }

    private static Refused notReady(SandboxRuntime runtime) {
        return new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + runtime.id() + " is " + runtime.status()
                + "; this needs READY").with("runtimeStatus", Jsonp.createValue(runtime.status().name()));
    }
}
