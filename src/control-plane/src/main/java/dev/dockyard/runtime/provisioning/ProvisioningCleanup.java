package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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

    private static final Logger LOG = Logger.getLogger(ProvisioningCleanup.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeSecrets secrets;

    /** Records the runtime ERROR with {@code message}; returns the status it is left in. */
    public RuntimeStatus fail(String id, String message) {
        try {
            journal.transition(id, RuntimeStatus.ERROR, message);
            return RuntimeStatus.ERROR;
        } catch (IllegalTransitionException e) {
            return e.from();
        } catch (RuntimeException e) {
            // the database is failing too: the reconciler will find the runtime stuck and fail it
            LOG.log(Level.SEVERE, "Could not record the failure of runtime " + id + ": " + secrets.redact(id, message)
                    + " (" + e + ")");
            return RuntimeStatus.ERROR;
        }
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
