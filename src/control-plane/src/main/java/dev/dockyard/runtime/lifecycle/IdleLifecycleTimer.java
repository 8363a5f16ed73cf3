package dev.dockyard.runtime.lifecycle;

import dev.dockyard.cluster.Leases;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.config.StartupOrder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sweeps with the {@link IdleLifecycle} every {@code dockyard.lifecycle.sweep-interval} seconds (a
 * non-persistent EJB interval timer, so the interval is configuration: each control plane sweeps
 * what it owns). No transaction is open during a sweep: it calls the backend and the executors.
 * A sweep still running when the next is due makes that one a no-op.
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class IdleLifecycleTimer {

    private final ReentrantLock running = new ReentrantLock();

    @Resource
    TimerService timers;

    @Inject
    IdleLifecycle lifecycle;

    @Inject
    DockyardConfig config;

    @Inject
    Leases leases;

    @PostConstruct
    void schedule() {
        long interval = config.sweepInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("dockyard-idle-lifecycle", false));
    }

    @Timeout
    void periodically() {
        // one sweeper among the control planes of a deployment: the holder of its lease
        if (leases.hold(Leases.IDLE_LIFECYCLE)) {
            runSweep();
        }
    }

    /** One sweep now, unless one is under way; null when skipped for that reason. */
    public IdleLifecycle.Report runSweep() {
        if (!running.tryLock()) {
            return null;
        }
        try {
            return lifecycle.sweep();
        } finally {
            running.unlock();
        }
    }
}
