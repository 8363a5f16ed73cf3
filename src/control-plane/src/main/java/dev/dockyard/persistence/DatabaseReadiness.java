package dev.dockyard.persistence;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /health/ready}'s {@code database} check: a connection of the non-transactional data source
 * that answers {@link Connection#isValid} (a round trip to the database) within
 * {@code dockyard.health.database-timeout} seconds, waited for on another thread so that neither a
 * full pool nor a database that does not answer holds the health request longer. DOWN names the
 * error's class and SQLState, never its message: a driver's message may carry the URL or the user.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    static final String NAME = "database";

    @Resource(lookup = "jdbc/dockyard-nontx")
    DataSource dataSource;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ExecutorService executor;

    @Inject
    @ConfigProperty(name = "dockyard.health.database-timeout")
    int timeoutSeconds;

    public DatabaseReadiness() {
    }

    /** For tests: what the container would inject. */
    DatabaseReadiness(DataSource dataSource, ExecutorService executor, int timeoutSeconds) {
        this.dataSource = dataSource;
        this.executor = executor;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public HealthCheckResponse call() {
        Future<Boolean> probe = executor.submit(() -> {
            try (Connection connection = dataSource.getConnection()) {
                return connection.isValid(timeoutSeconds);
            }
        });
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
        try {
            return probe.get(timeoutSeconds, TimeUnit.SECONDS) ? response.up().build()
                    : response.down().withData("error", "the connection is not valid").build();
        } catch (TimeoutException e) {
            probe.cancel(true);
            return response.down().withData("error", "no answer within " + timeoutSeconds + " s").build();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            response.down().withData("error", cause.getClass().getName());
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                response.withData("sqlState", sql.getSQLState());
            }
            return response.build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return response.down().withData("error", "interrupted").build();
        }
    }
}
