package dev.dockyard.persistence;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * full pool nor a database that does not answer holds the health request longer; checks that arrive
 * while one is under way share its round trip. DOWN names the error's class and SQLState, never its
 * message: a driver's message may carry the URL or the user.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    static final String NAME = "database";

    @Resource(lookup = "jdbc/dockyard-nontx")
    DataSource dataSource;

    @Resource
    ManagedThreadFactory threadFactory;

    /**
     * The probes' own threads: never in a queue behind the requests that wait for their answer.
     * Not one thread: a probe stuck in a socket read (a database that accepts and says nothing) is
     * not freed by its cancel, and the next probe must not wait behind it.
     */
    private ExecutorService executor;

    @Inject
    @ConfigProperty(name = "dockyard.health.database-timeout")
    int timeoutSeconds;

    /** The probe in flight, shared by the checks that arrive while it runs. */
    private Future<Boolean> running;

    public DatabaseReadiness() {
    }

    @PostConstruct
    void start() {
        executor = Executors.newCachedThreadPool(threadFactory);
    }

    @PreDestroy
    void stop() {
        executor.shutdownNow();
    }

    /** For tests: what the container would inject. */
    DatabaseReadiness(DataSource dataSource, ExecutorService executor, int timeoutSeconds) {
        this.dataSource = dataSource;
        this.executor = executor;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public HealthCheckResponse call() {
        Future<Boolean> probe = probe();
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
        try {
            return probe.get(timeoutSeconds, TimeUnit.SECONDS) ? response.up().build()
                    : response.down().withData("error", "the connection is not valid").build();
        } catch (TimeoutException e) {
            probe.cancel(true);
            return response.down().withData("error", "no answer within " + timeoutSeconds + " s").build();
        } catch (CancellationException e) {
            // a check that joined this probe earlier gave up on it: it had no answer for that long
            return response.down().withData("error", "no answer within " + timeoutSeconds + " s to a probe "
                    + "shared with another check").build();
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

    /**
     * One round trip for every check that arrives while one is under way, on a thread of its own.
     * Each check used to send its own probe to the server's executor and wait for it: with 200
     * checks at once (a load balancer, a burst of kubelet retries) the probes waited in the queue
     * behind the very requests that waited for them, and a check answered DOWN, "no answer within
     * 5 s", with the database idle.
     */
    private synchronized Future<Boolean> probe() {
        if (running == null || running.isDone()) {
            running = executor.submit(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    return connection.isValid(timeoutSeconds);
                }
            });
        }
        return running;
    }
}
