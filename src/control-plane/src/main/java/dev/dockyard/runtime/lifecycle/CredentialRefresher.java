package dev.dockyard.runtime.lifecycle;

import dev.dockyard.cluster.Leases;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The schedule of {@link CredentialRenewal}: a non-persistent EJB timer every ten seconds, with no
 * transaction of its own (a container-managed one would hold token calls and pushes inside a
 * global transaction). A pass that is still running when the next one is due lets it go.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class CredentialRefresher {

    private static final Logger LOG = Logger.getLogger(CredentialRefresher.class.getName());

    private final ReentrantLock running = new ReentrantLock();

    @Inject
    CredentialRenewal renewal;

    @Inject
    Leases leases;

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false, info = "dockyard-credential-refresh")
    void scheduled() {
        try {
            // one refresher among the control planes of a deployment: the holder of its lease
            if (leases.hold(Leases.CREDENTIAL_REFRESHER)) {
                runPass();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "A credential renewal pass failed", e);
        }
    }

    /** Runs a pass now; empty while another one is under way. */
    public OptionalInt runPass() {
        if (!running.tryLock()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(renewal.renewExpiring());
        } finally {
            running.unlock();
        }
    }
}
