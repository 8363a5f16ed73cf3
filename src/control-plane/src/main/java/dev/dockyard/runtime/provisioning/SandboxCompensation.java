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
 * JTA-managed cleanup: ties work to the outcome of the transaction under way. A sandbox recorded
 * in a transaction that does not commit is removed when it completes, whatever made it roll back,
 * so a sandbox never outlives a record that was never written; what may only happen once a change
 * is committed (forgetting an ended runtime's secrets) waits for the commit.
 */
@ApplicationScoped
public class SandboxCompensation {

    private static final Logger LOG = Logger.getLogger(SandboxCompensation.class.getName());

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** Within an active transaction: remove {@code sandboxName} from {@code backend} unless the transaction commits. */
    public void removeOnRollback(RuntimeBackend backend, String sandboxName) {
        afterCompletion(false, () -> {
            try {
                backend.remove(sandboxName);
                LOG.info("Removed sandbox " + sandboxName + ": the transaction recording it rolled back");
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not remove sandbox " + sandboxName
                        + " after a rollback; the reconciler will", e);
            }
        });
    }

    /** {@code work} once the transaction under way commits (never if it rolls back); at once outside one. */
    public void afterCommit(Runnable work) {
        if (transactions == null || transactions.getTransactionKey() == null) {
            work.run();
            return;
        }
        afterCompletion(true, work);
    }

    private void afterCompletion(boolean onCommit, Runnable work) {
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // nothing to prepare
            }

            @Override
            public void afterCompletion(int status) {
                if ((status == Status.STATUS_COMMITTED) == onCommit) {
                    work.run();
                }
            }
        });
    }
}
