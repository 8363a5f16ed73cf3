package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.SandboxConfigurations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Hibernation: a PAUSED runtime's container is stopped, so its memory is freed while the container
 * and its files stay; its processes (the shell, its variables) do not survive. Waking it is a
 * cold boot of the executor in the same container: the session key is handed anew, the executor
 * is probed until ready, and the runtime's configuration (environment, credentials, LLM settings)
 * is pushed again, since a freshly booted executor knows none of it.
 *
 * <p>HIBERNATED is recorded before the container is stopped, and READY only after the woken
 * executor is configured: the reconciler leaves a HIBERNATED runtime's stopped container alone,
 * so neither step looks like a disconnection to it. The callers hold the runtime's gate.
 */
@ApplicationScoped
public class Hibernation {

    private static final Logger LOG = Logger.getLogger(Hibernation.class.getName());
    /** When a wake got no turn to boot in time: its caller may try again after this many seconds. */
    private static final int RETRY_AFTER_NO_TURN = 5;
    /** A shorter wait for a turn is the time to take it, not a wait in line. */
    private static final long WAIT_WORTH_SAYING_MS = 50;

    /** Runtime → the lock its wakes take turns on (kept while it lives: a waiter must find the same one). */
    private final Map<String, Object> waking = new ConcurrentHashMap<>();

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    @Inject
    ReadinessProbe readiness;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    Credentials credentials;

    @Inject
    ExecutorClient executors;

    @Inject
    RuntimeSecrets secrets;

    @Inject
    DockyardConfig config;

    @Inject
    Activity activity;

    @Inject
    RuntimeGates gates;

    @Inject
    Clock clock;

    @Inject
    BootTurns turns;

    /**
     * PAUSED → HIBERNATED on request; HIBERNATED stays HIBERNATED. The pause's reason is kept: a
     * runtime the user paused stays refused to actions until resumed, one paused for idleness is
     * woken by the next action.
     *
     * @throws RuntimeGates.RuntimeBusyException while an action, pause, resume or migration holds it
     * @throws IllegalTransitionException         when it is not PAUSED
     */
    public SandboxRuntime hibernate(String runtimeId) {
        RuntimeGates.Pass pass = gates.enterSleepIfIdle(runtimeId).orElseThrow(() -> new RuntimeGates.RuntimeBusyException(
                "runtime " + runtimeId + " is busy (an action, a pause or resume, or a migration holds it); try again",
                false));
        try (pass) {
            return hibernateHeld(runtimeId, "Hibernated on request");
        }
    }

    /** The same, with the runtime held by the caller; {@code why} opens the status message. */
    SandboxRuntime hibernateHeld(String runtimeId, String why) {
        SandboxRuntime runtime = current(runtimeId);
        if (runtime.status() == RuntimeStatus.HIBERNATED) {
            return runtime;
        }
        if (runtime.status() != RuntimeStatus.PAUSED) {
            throw new IllegalTransitionException(runtimeId, runtime.status(), RuntimeStatus.HIBERNATED);
        }
        // recorded first: a reconciler pass meanwhile must see a stopping container as hibernating
        if (!journal.transitionIf(runtimeId, EnumSet.of(RuntimeStatus.PAUSED), RuntimeStatus.HIBERNATED,
                why + ": its container is stopped (memory freed, files kept; processes and shell state are not)")) {
            SandboxRuntime now = current(runtimeId);
            throw new IllegalTransitionException(runtimeId, now.status(), RuntimeStatus.HIBERNATED);
        }
        activity.asleep(runtimeId);
        try {
            nodes.on(runtime.node()).stop(runtime.containerName());
        } catch (BackendException e) {
            // the container may still run (thawed): PAUSED says what it is less wrongly, and the
            // reconciler sorts out a container that is gone or stopped
            journal.transitionIf(runtimeId, EnumSet.of(RuntimeStatus.HIBERNATED), RuntimeStatus.PAUSED,
                    "Hibernation failed, left paused: " + e.getMessage());
            throw e;
        }
        return current(runtimeId);
    }

    /**
     * HIBERNATED → READY by a cold boot, with the runtime held by the caller. A wake that fails
     * leaves it ERROR_RUNTIME_DISCONNECTED (the reconciler then brings it back or releases it);
     * answers the runtime as it is then.
     *
     * @param cause what woke it, for the status message ("Woken by an action")
     * @throws PlacementRefusedException (no capacity, with Retry-After) when the node gave the wake
     *         no turn to boot within the runtime's readiness limit: nothing was booted, it stays HIBERNATED
     */
    SandboxRuntime wakeHeld(SandboxRuntime hibernated, String cause) {
        // one wake at a time per runtime (an action and a POST /resume may both wake it): a second
        // revive would hand the key file again after the executor consumed it, for the agent to find
        synchronized (waking.computeIfAbsent(hibernated.id(), id -> new Object())) {
            SandboxRuntime runtime = current(hibernated.id());
            if (runtime.status() != RuntimeStatus.HIBERNATED) {
                // woken meanwhile by whoever held the lock before
                return runtime;
            }
            return wake(runtime, cause);
        }
    }

    /** Forgets the wake locks of runtimes not in {@code live} (they ended). */
    void retainOnly(Set<String> live) {
        waking.keySet().retainAll(live);
    }

    private SandboxRuntime wake(SandboxRuntime runtime, String cause) {
        String id = runtime.id();
        String name = runtime.containerName();
        RuntimeBackend backend = nodes.on(runtime.node());
        long hibernatedFor = Duration.between(runtime.updatedAt(), clock.instant()).toSeconds();
        long start = System.nanoTime();
        try {
            URI endpoint;
            long waited;
            long booted;
            // a wake boots like a provision and takes a turn on the node (BootTurns), ahead of new
            // provisions and pool refills (its user's work is in it): a burst of wakes and provisions
            // booting at once would starve one another into missing their readiness limits, which
            // count from the turn
            Duration limit = Duration.ofSeconds(runtime.timeoutSeconds());
            try (BootTurns.Turn turn = turns.await(nodes.named(runtime.node()), BootTurns.Line.RETURNING, limit)) {
                long turnAt = System.nanoTime();
                waited = (turnAt - start) / 1_000_000;
                allowBoot(backend, runtime);
                endpoint = backend.revive(name, runtime.sessionKey(), config.sandboxUser(), config.executorPort());
                readiness.probe(new ReadinessAttempt(backend, name, endpoint, runtime.sessionKey(), limit, clock));
                booted = (System.nanoTime() - turnAt) / 1_000_000;
            }
            SandboxConfiguration configuration = configurations.of(runtime, credentialValues(runtime.userId()));
            secrets.remember(id, configuration.secretValues());
            executors.configure(endpoint, runtime.sessionKey(), configuration);
            backend.settle(name, runtime.cpus());
            long total = (System.nanoTime() - start) / 1_000_000;
            if (!journal.transitionIf(id, EnumSet.of(RuntimeStatus.HIBERNATED), RuntimeStatus.READY, cause + " after "
                    + hibernatedFor + " s hibernated: cold boot in " + booted + " ms"
                    + (waited >= WAIT_WORTH_SAYING_MS ? " after " + waited + " ms waiting for a turn to boot" : "")
                    + ", configured and ready in " + total + " ms, files kept", r -> r.reachableAt(endpoint.toString()))) {
                // stopped meanwhile: its sandbox is being removed, nothing to hand back
                return current(id);
            }
            activity.awake(id);
            activity.touch(id);
        } catch (BootTurns.NoTurnException e) {
            // nothing was booted: the runtime stays HIBERNATED, and the caller is told to come back
            throw new PlacementRefusedException(PlacementRefusedException.Reason.NO_CAPACITY, runtime.node(),
                    "runtime " + id + " stays hibernated: " + e.getMessage()).retryAfter(RETRY_AFTER_NO_TURN);
        } catch (RuntimeException e) {
            LOG.warning("Waking runtime " + id + " from hibernation failed: " + secrets.redact(runtime, e.getMessage()));
            journal.transitionIf(id, EnumSet.of(RuntimeStatus.HIBERNATED), RuntimeStatus.ERROR_RUNTIME_DISCONNECTED,
                    "Waking from hibernation failed: " + e.getMessage() + "; released "
                            + graceOf(runtime).toSeconds() + " s after this unless its sandbox answers again");
        }
        return current(id);
    }

    /** The disconnected grace of the runtime's node. */
    private Duration graceOf(SandboxRuntime runtime) {
        return config.disconnectedGrace(nodes.named(runtime.node()));
    }

    /**
     * The executor boots CPU-bound: it gets the boot allowance again, as at provisioning (no cap
     * there is every CPU here; a node with fewer refuses that, and it boots within its own limit).
     */
    private void allowBoot(RuntimeBackend backend, SandboxRuntime runtime) {
        double boot = config.sandboxBootCpus() > 0 ? config.sandboxBootCpus()
                : Runtime.getRuntime().availableProcessors();
        if (boot <= runtime.cpus()) {
            return;
        }
        try {
            backend.settle(runtime.containerName(), boot);
        } catch (BackendException e) {
            LOG.fine("No boot allowance for " + runtime.containerName() + ": " + e.getMessage());
        }
    }

    /**
     * The user's credentials for the woken sandbox: valid ones, else the last stored value (a
     * token endpoint that is down must not keep a workspace asleep; the executor is told again on
     * the next refresh).
     */
    private Map<String, String> credentialValues(String userId) {
        Credentials.Resolution resolution = credentials.resolve(userId);
        Map<String, String> values = new LinkedHashMap<>(resolution.stale());
        values.putAll(resolution.values());
        return values;
    }

    private SandboxRuntime current(String runtimeId) {
        return journal.find(runtimeId).orElseThrow(() -> new IllegalStateException("runtime " + runtimeId + " vanished"));
    }
}
