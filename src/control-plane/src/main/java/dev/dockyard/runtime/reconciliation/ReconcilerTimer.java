package dev.dockyard.runtime.reconciliation;

import dev.dockyard.cluster.Leases;
import dev.dockyard.config.StartupOrder;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs the {@link Reconciler} at startup and every ten seconds (a non-persistent EJB timer: each
 * deployment sweeps what it owns; among its processes, only the holder of the reconciler's lease). No transaction is open during a pass: it calls the backend
 * and the executors, and a pass longer than the transaction timeout must not roll back and run
 * again. A pass still running when the next is due makes that one a no-op.
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ReconcilerTimer {

    private final ReentrantLock running = new ReentrantLock();

    @Inject
    Reconciler reconciler;

    @Inject
    WorkspaceSweep workspaceSweep;

    @Inject
    Leases leases;

    @Inject
    ReconcilerTurns turns;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void atStartup() {
        runPass();
    }

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false, info = "dockyard-reconciler")
    void periodically() {
        runPass();
    }

    /** One pass now, unless one is under way or another instance holds the lease; null when skipped for that reason. */
    public Reconciler.Report runPass() {
        if (!running.tryLock()) {
            return null;
        }
        try {
            if (!leases.hold(Leases.RECONCILER)) {
                turns.turned();
                return null;
            }
            Reconciler.Report report = reconciler.pass(() -> leases.fresh(Leases.RECONCILER));
            if (leases.fresh(Leases.RECONCILER)) {
                // after the pass: volumes of the sandboxes it just removed are unused now. Also after a
                // pass that could not list some node: the sweep skips that node itself, and a node that
                // stays away (a remote control plane down for days) must not stop the others' sweeps
                workspaceSweep.sweep();
            }
            turns.turned();
            return report;
        } finally {
            running.unlock();
        }
    }
}
