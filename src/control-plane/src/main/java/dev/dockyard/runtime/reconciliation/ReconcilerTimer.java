package dev.dockyard.runtime.reconciliation;

import dev.dockyard.cluster.Leases;
import dev.dockyard.config.StartupOrder;
import dev.dockyard.runtime.provisioning.ProvisioningCleanup;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * Runs the {@link Reconciler} at startup and every ten seconds (a non-persistent EJB timer: each
 * deployment sweeps what it owns; among its processes, only the holder of the reconciler's lease). No transaction is open during a pass: it calls the backend
 * and the executors, and a pass longer than the transaction timeout must not roll back and run
 * again. A pass still running when the next is due makes that one a no-op.
 *
 * <p>A request that finds an executor refusing connections ({@link SandboxUnanswered}) brings a
 * pass forward: one now (however many requests found it), and after a pass that found a sandbox
 * stopped and started it again, one a second until a pass finds it answering (at most
 * {@link #FOLLOW_UPS}), so a killed executor is READY again in seconds, not in two or three ticks.
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ReconcilerTimer {

    private static final Logger LOG = Logger.getLogger(ReconcilerTimer.class.getName());

    /** Passes a second apart, at most, after one that started a stopped sandbox again. */
    static final int FOLLOW_UPS = 15;

    private final ReentrantLock running = new ReentrantLock();
    private final AtomicBoolean soonPending = new AtomicBoolean();
    private final AtomicInteger followUps = new AtomicInteger();

    @Resource
    TimerService timers;

    @Inject
    Reconciler reconciler;

    @Inject
    WorkspaceSweep workspaceSweep;

    @Inject
    Leases leases;

    @Inject
    ReconcilerTurns turns;

    @Inject
    ProvisioningCleanup cleanup;

    @Inject
    CaptureLeftovers captureLeftovers;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void atStartup() {
        runPass();
    }

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false, info = "dockyard-reconciler")
    void periodically() {
        runPass();
    }

    /** A request found a sandbox's executor refusing connections: a pass now. */
    public void onSandboxUnanswered(@ObservesAsync SandboxUnanswered unanswered) {
        soon(0);
    }

    private void soon(long delayMs) {
        if (soonPending.compareAndSet(false, true)) {
            timers.createSingleActionTimer(delayMs, new TimerConfig("dockyard-reconciler-soon", false));
        }
    }

    @Timeout
    void broughtForward() {
        soonPending.set(false);
        if (running.isLocked()) {
            // a pass is under way and may have listed the node before the sandbox stopped: after it
            soon(500);
            return;
        }
        Reconciler.Report report = runPass();
        if (report != null && report.disconnected() > 0) {
            followUps.set(FOLLOW_UPS);
        } else if (report != null && report.reconnected() > 0) {
            followUps.set(0);
        }
        if (followUps.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
            soon(1000);
        }
    }

    /** One pass now, unless one is under way or another instance holds the lease; null when skipped for that reason. */
    public Reconciler.Report runPass() {
        if (!running.tryLock()) {
            return null;
        }
        try {
            try {
                // this process's own failures the database did not take, whoever holds the lease
                cleanup.recordLateFailures();
            } catch (RuntimeException e) {
                LOG.fine("Late failures not recorded: " + e);
            }
            try {
                // and the parts of its failed snapshots its engine did not let it remove
                captureLeftovers.removeAll();
            } catch (RuntimeException e) {
                LOG.fine("Leftovers of failed snapshots not removed: " + e);
            }
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
