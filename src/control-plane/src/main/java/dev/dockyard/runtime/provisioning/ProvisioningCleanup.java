package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.persistence.DatabaseOutage;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a provisioning that does not end READY leaves, for cold provisioning and warm claims alike:
 * its failure recorded as ERROR (or the status a stop left, when the runtime was stopped meanwhile)
 * and its sandbox removed. Neither may fail the provisioning's thread: what cannot be recorded or
 * removed now, the reconciler finds and finishes.
 */
@ApplicationScoped
public class ProvisioningCleanup {

    private static final String DATABASE_DID_NOT_ANSWER =
            "the control plane's database did not answer; provision again once it does";

    private static final Logger LOG = Logger.getLogger(ProvisioningCleanup.class.getName());
    /** The statuses of a provision under way, which a late failure replaces. */
    private static final Set<RuntimeStatus> STARTING = EnumSet.of(RuntimeStatus.STARTING_RUNTIME,
            RuntimeStatus.BUILDING_RUNTIME, RuntimeStatus.RUNTIME_STARTED);

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeSecrets secrets;

    /**
     * Failures that could not be recorded (the database failed too), by runtime: recorded again by
     * {@link #recordLateFailures} until they are. The reconciler fails a stuck provision only once
     * its process is dead; this process lives on, so without this its runtime stayed STARTING for as
     * long (the soak, 2026-11-30 21:41: 11 provisions STARTING for minutes after a PostgreSQL stop).
     */
    private final Map<String, String> unrecorded = new ConcurrentHashMap<>();

    /** Records the runtime ERROR with {@code message}; returns the status it is left in. */
    public RuntimeStatus fail(String id, String message) {
        try {
            journal.transition(id, RuntimeStatus.ERROR, message);
            unrecorded.remove(id);
            return RuntimeStatus.ERROR;
        } catch (IllegalTransitionException e) {
            unrecorded.remove(id);
            return e.from();
        } catch (RuntimeException e) {
            // the database is failing too: recorded again once it answers
            LOG.log(Level.SEVERE, "Could not record the failure of runtime " + id + ": " + secrets.redact(id, message)
                    + " (" + e + "); it is recorded once the database answers");
            unrecorded.put(id, message);
            return RuntimeStatus.ERROR;
        }
    }

    /**
     * The message of a provision that failed at {@code step} with {@code failure}: the exception as
     * it is, but a database that did not answer in plain words, not the persistence layer's dump of
     * its SQL (thousands of characters, in the soak of 2026-11-30).
     */
    public static String failedAt(ProvisioningStep step, RuntimeException failure) {
        if (DatabaseOutage.causes(failure)) {
            return "Provisioning failed at step '" + step.label() + "': " + DATABASE_DID_NOT_ANSWER;
        }
        return "Provisioning failed at step '" + step.label() + "': " + failure;
    }

    /**
     * Whether a runtime's ERROR {@code statusMessage} says its provision failed because the database
     * did not answer: nothing was wrong with the request, and the same request succeeds once it does.
     */
    public static boolean failedForTheDatabase(String statusMessage) {
        return statusMessage != null && statusMessage.endsWith(DATABASE_DID_NOT_ANSWER);
    }

    /**
     * Records the failures {@link #fail} could not, where the runtime is still starting (a stop
     * since stands); returns how many are left. Called on every control plane's timer, whoever
     * holds the reconciler's lease: the failures are this process's to record.
     */
    public int recordLateFailures() {
        for (Map.Entry<String, String> failure : Map.copyOf(unrecorded).entrySet()) {
            try {
                journal.transitionIf(failure.getKey(), STARTING, RuntimeStatus.ERROR, failure.getValue());
                unrecorded.remove(failure.getKey());
            } catch (RuntimeException e) {
                if (DatabaseOutage.causes(e)) {
                    // still down: the next tick, for all of them
                    LOG.fine("Failure of " + failure.getKey() + " not recorded yet: " + e);
                    break;
                }
                // this one cannot be recorded for a reason of its own: it must not hold up the others
                LOG.warning("The failure of runtime " + failure.getKey() + " cannot be recorded (" + e
                        + "); the reconciler fails it once this process is gone");
                unrecorded.remove(failure.getKey());
            }
        }
        return unrecorded.size();
    }

    /** Removes the sandbox, or leaves it to the reconciler when the backend fails. */
    public void removeQuietly(RuntimeBackend backend, String name) {
        try {
            backend.remove(name);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove sandbox " + name + "; the reconciler will", e);
        }
    }
}
