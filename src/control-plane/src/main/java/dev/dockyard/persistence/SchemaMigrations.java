package dev.dockyard.persistence;

import dev.dockyard.config.StartupOrder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Migrates the schema when the application starts, before anything uses JPA: the other startup
 * beans name this one in {@code @DependsOn} (by {@code config.StartupOrder}), and requests are served only once startup beans have
 * run; a database that does not answer yet is waited for ({@code dockyard.database.startup-wait}). It
 * uses the non-transactional data source: Flyway manages its own transactions, and on
 * PostgreSQL a failed statement would spoil a shared one.
 */
@Singleton(name = StartupOrder.SCHEMA_MIGRATIONS)
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigrations {

    @Resource(lookup = "jdbc/dockyard-nontx")
    DataSource dataSource;

    private SchemaMigrator.Outcome outcome;

    /**
     * Seconds the start waits for a database that does not answer yet; the application does not
     * start (and the server is not ready) meanwhile.
     */
    @Inject
    @ConfigProperty(name = "dockyard.database.startup-wait", defaultValue = "300")
    int startupWaitSeconds;

    @PostConstruct
    void atStartup() {
        outcome = SchemaMigrator.migrateOnceReachable(dataSource, Duration.ofSeconds(startupWaitSeconds));
    }

    /** What the migration at startup did. */
    public SchemaMigrator.Outcome outcome() {
        return outcome;
    }
}
