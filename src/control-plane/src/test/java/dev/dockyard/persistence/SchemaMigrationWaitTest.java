package dev.dockyard.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.junit.jupiter.api.Test;

/**
 * A control plane started while its database does not answer yet (a database restarting in the
 * soak's two-control-plane profile, or started after the control plane) waits for it and starts
 * once it answers; before, its schema migration failed and the application never deployed.
 */
class SchemaMigrationWaitTest {

    static {
        System.setProperty("derby.stream.error.file", "target/derby.log");
    }

    private final AtomicInteger asked = new AtomicInteger();

    /** A real embedded Derby whose first {@code refusals} connections are refused with {@code refusal}. */
    private DataSource refusingFirst(int refusals, SQLException refusal) throws IOException {
        EmbeddedDataSource derby = new EmbeddedDataSource();
        derby.setDatabaseName(Files.createTempDirectory("dockyard-migrations-wait").resolve("db").toString());
        derby.setCreateDatabase("create");
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && asked.incrementAndGet() <= refusals) {
                        throw refusal;
                    }
                    try {
                        return method.invoke(derby, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static SQLException connectionRefused() {
        return new SQLNonTransientConnectionException("Connection to 127.0.0.1:15432 refused", "08001");
    }

    @Test
    void shouldMigrateOnceTheDatabaseAnswers() throws Exception {
        DataSource database = refusingFirst(2, connectionRefused());

        SchemaMigrator.Outcome outcome = SchemaMigrator.migrateOnceReachable(database, Duration.ofSeconds(30));

        assertEquals(SchemaMigrator.Kind.DERBY, outcome.kind());
        assertTrue(outcome.applied() > 0, "migrated: " + outcome);
        assertTrue(asked.get() > 2, "asked again after the refusals: " + asked.get());
    }

    @Test
    void shouldFailAtOnceForAnythingButADatabaseThatDoesNotAnswer() throws Exception {
        DataSource database = refusingFirst(1, new SQLSyntaxErrorException("no such schema", "42Y07"));

        assertThrows(IllegalStateException.class,
                () -> SchemaMigrator.migrateOnceReachable(database, Duration.ofSeconds(30)));
        assertEquals(1, asked.get(), "not asked again");
    }

    @Test
    void shouldGiveUpOnceTheWaitIsOver() throws Exception {
        DataSource database = refusingFirst(Integer.MAX_VALUE, connectionRefused());

        long start = System.nanoTime();
        IllegalStateException failed = assertThrows(IllegalStateException.class,
                () -> SchemaMigrator.migrateOnceReachable(database, Duration.ofSeconds(2)));

        assertTrue(DatabaseOutage.causes(failed), failed.toString());
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 5000, "bounded by the wait");
        assertTrue(asked.get() >= 2, "tried again within the wait: " + asked.get());
    }
}
