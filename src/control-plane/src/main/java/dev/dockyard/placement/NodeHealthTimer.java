package dev.dockyard.placement;

import dev.dockyard.config.DockyardConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
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
 * Probes every backend node each {@code dockyard.nodes.health-interval} (a non-persistent timer;
 * no transaction: a probe calls the backend). A pass still running when the next is due (an engine
 * that hangs rather than refuses) makes that one a no-op.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class NodeHealthTimer {

    private final ReentrantLock running = new ReentrantLock();

    @Inject
    NodeHealth health;

    @Inject
    DockyardConfig config;

    @Resource
    TimerService timers;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void atStartup() {
        long interval = config.nodeHealthInterval().toMillis();
        timers.createIntervalTimer(0, interval, new TimerConfig("dockyard-node-health", false));
    }

    @Timeout
    void periodically() {
        if (!running.tryLock()) {
            return;
        }
        try {
            health.probeAll();
        } finally {
            running.unlock();
        }
    }
}
