package dev.dockyard.cluster;

import dev.dockyard.config.StartupOrder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * Renews this instance's heartbeat and the leases it holds every five seconds (so
 * {@code dockyard.leases.ttl} must be well above five), and gives every lease up when the server
 * stops cleanly (a killed one's leases expire after {@code dockyard.leases.ttl}).
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class HeartbeatTimer {

    @Inject
    Leases leases;

    @PostConstruct
    void atStartup() {
        leases.heartbeat();
    }

    @Schedule(second = "*/5", minute = "*", hour = "*", persistent = false, info = "dockyard-heartbeat")
    void periodically() {
        leases.heartbeat();
    }

    @PreDestroy
    void atShutdown() {
        leases.releaseAll();
    }
}
