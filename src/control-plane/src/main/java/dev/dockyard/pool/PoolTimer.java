package dev.dockyard.pool;

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

/**
 * Declares the configured pools at startup, then has the {@link PoolKeeper} tend every pool each
 * {@code dockyard.pools.tend-interval} (a non-persistent timer: each control plane keeps its own
 * members). No transaction is open during a pass: it boots sandboxes.
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class PoolTimer {

    @Inject
    ConfiguredPools configured;

    @Inject
    PoolKeeper keeper;

    @Inject
    DockyardConfig config;

    @Inject
    Leases leases;

    @Resource
    TimerService timers;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void atStartup() {
        // refills run where the pool keeper's lease is; claims run anywhere (members are rows). Before
        // the declared pools: declaring one asks for a pass, which must already ask for the lease
        keeper.keepOnlyWhile(() -> leases.hold(Leases.POOL_KEEPER), () -> leases.fresh(Leases.POOL_KEEPER));
        configured.declare();
        long interval = config.poolTendInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("dockyard-pools", false));
        keeper.checkSoon();
    }

    @Timeout
    void periodically() {
        keeper.tend();
    }
}
