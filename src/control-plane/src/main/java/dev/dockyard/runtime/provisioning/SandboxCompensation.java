package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.RuntimeBackend;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * JTA-managed cleanup: ties a sandbox to the transaction that records it. If that transaction
 * does not commit, the sandbox is removed when it completes, whatever made it roll back, so a
 * sandbox never outlives a record that was never written.
 */
@ApplicationScoped
public class SandboxCompensation {

    private static final Logger LOG = Logger.getLogger(SandboxCompensation.class.getName());

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** Within an active transaction: remove {@code sandboxName} from {@code backend} unless the transaction commits. */
    public void removeOnRollback(RuntimeBackend backend, String sandboxName) {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // nothing to prepare
            }

            @Override
            public void afterCompletion(int status) {
                if (status != Status.STATUS_COMMITTED) {
                    try {
                        backend.remove(sandboxName);
                        LOG.info("Removed sandbox " + sandboxName + ": the transaction recording it rolled back");
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "Could not remove sandbox " + sandboxName
                                + " after a rollback; the reconciler will", e);
                    }
                }
            }
        });
    }
}
