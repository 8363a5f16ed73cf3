package dev.dockyard.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The database readiness check against real drivers: an embedded Derby, a missing one, a server that never answers. */
class DatabaseReadinessTest {

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void quietDerby() {
        System.setProperty("derby.stream.error.file", "target/derby.log");
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /**
     * An embedded database made before any check, which times answering, not Derby making a
     * database (seconds on a busy machine).
     */
    private static EmbeddedDataSource createdDerby() throws Exception {
        EmbeddedDataSource derby = new EmbeddedDataSource();
        derby.setDatabaseName(Files.createTempDirectory("dockyard-health").resolve("db").toString());
        derby.setCreateDatabase("create");
        derby.getConnection().close();
        return derby;
    }

    @Test
    void shouldBeUpWhenTheDatabaseAnswers() throws Exception {
        EmbeddedDataSource derby = createdDerby();
        HealthCheckResponse response = new DatabaseReadiness(derby, threads, 5).call();
        assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
        assertEquals("database", response.getName());
    }

    @Test
    void shouldNameTheErrorClassAndStateButNotTheDatabaseWhenItIsMissing() throws Exception {
        EmbeddedDataSource derby = new EmbeddedDataSource();
        Path secretPlace = Files.createTempDirectory("dockyard-health").resolve("secret-place");
        derby.setDatabaseName(secretPlace.toString()); // not created: the connection fails
        HealthCheckResponse response = new DatabaseReadiness(derby, threads, 5).call();
        assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
        String data = response.getData().orElseThrow().toString();
        assertTrue(data.contains("java.sql.SQLException") || data.contains("SQLException"), data);
        assertTrue(response.getData().orElseThrow().containsKey("sqlState"), data);
        assertFalse(data.contains("secret-place"), data);
    }

    @Test
    void shouldSendOneProbeForAllTheChecksThatArriveWhileItRuns() throws Exception {
        EmbeddedDataSource derby = createdDerby();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger connections = new AtomicInteger();
        // a data source whose connections come only once every check has arrived
        DataSource slow = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        connections.incrementAndGet();
                        release.await();
                    }
                    return method.invoke(derby, args);
                });
        DatabaseReadiness readiness = new DatabaseReadiness(slow, threads, 5);
        ExecutorService checks = Executors.newFixedThreadPool(20);
        try {
            List<Future<HealthCheckResponse>> answers = new ArrayList<>();
            CountDownLatch arrived = new CountDownLatch(20);
            for (int i = 0; i < 20; i++) {
                answers.add(checks.submit(() -> {
                    arrived.countDown();
                    return readiness.call();
                }));
            }
            assertTrue(arrived.await(10, TimeUnit.SECONDS));
            // the last to arrive is a statement away from the probe; the first's is stuck until released
            Thread.sleep(200);
            release.countDown();
            for (Future<HealthCheckResponse> answer : answers) {
                assertEquals(HealthCheckResponse.Status.UP, answer.get(10, TimeUnit.SECONDS).getStatus());
            }
            assertEquals(1, connections.get(), "each check sent a probe of its own");
            // a check after that one finished sends a new probe: the answer is never an old one
            assertEquals(HealthCheckResponse.Status.UP, readiness.call().getStatus());
            assertEquals(2, connections.get());
        } finally {
            checks.shutdownNow();
        }
    }

    @Test
    void shouldGoDownWithinTheTimeoutWhenTheServerNeverAnswersAndKeepThePasswordOut() throws Exception {
        // a "database" on a port of our own that accepts the connection and then says nothing
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            PGSimpleDataSource postgresql = new PGSimpleDataSource();
            postgresql.setServerNames(new String[] {"127.0.0.1"});
            postgresql.setPortNumbers(new int[] {silent.getLocalPort()});
            postgresql.setDatabaseName("dockyard");
            postgresql.setUser("dockyard");
            postgresql.setPassword("canary-password-7f3a");
            long start = System.nanoTime();
            HealthCheckResponse response = new DatabaseReadiness(postgresql, threads, 1).call();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
            assertEquals("no answer within 1 s", response.getData().orElseThrow().get("error"));
            assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "took " + took);
            assertFalse(response.getData().orElseThrow().toString().contains("canary-password-7f3a"));
        }
    }
}
