package dev.dockyard.placement;

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
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;

/**
 * Probes every backend node each {@code dockyard.nodes.health-interval} (a non-persistent timer;
 * no transaction: a probe calls the backend), each node on a managed thread of its own: a probe
 * still under way when the next is due (an engine that hangs rather than refuses) is not started
 * again, and its node goes stale ({@link NodeHealth#report}).
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class NodeHealthTimer {

    @Inject
    NodeHealth health;

    @Inject
    DockyardConfig config;

    @Resource
    TimerService timers;

    @Resource
    ManagedExecutorService threads;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void atStartup() {
        long interval = config.nodeHealthInterval().toMillis();
        timers.createIntervalTimer(0, interval, new TimerConfig("dockyard-node-health", false));
    }

    @Timeout
    void periodically() {
        health.probeAll(threads);
    }
}
