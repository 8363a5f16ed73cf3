package dev.dockyard.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The migrations on real databases: an embedded Derby and the PostgreSQL that
 * {@code docker/ensure-postgresql.sh} runs. Both must end with the tables and columns the entities
 * map, and a schema EclipseLink made before migrations must be adopted with its rows.
 */
class SchemaMigratorTest {

    private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();
    /** The newest migration's version: every database ends there. */
    private static final String LATEST = "8";

    static {
        // embedded Derby's log in target, not in the module's directory
        System.setProperty("derby.stream.error.file", "target/derby.log");
    }

    @Test
    void shouldGiveAnEmptyDerbyTheEntitiesTables() throws Exception {
        DataSource derby = derby("empty");
        SchemaMigrator.Outcome outcome = SchemaMigrator.migrate(derby);
        assertEquals(SchemaMigrator.Kind.DERBY, outcome.kind());
        assertFalse(outcome.adopted());
        assertEquals(LATEST, outcome.version());
        assertEquals(entityColumns(), tables(derby));
    }

    @Test
    void shouldGiveAnEmptyPostgresqlTheSameTablesAsDerby() throws Exception {
        DataSource postgresql = postgresql();
        SchemaMigrator.Outcome outcome = SchemaMigrator.migrate(postgresql);
        assertEquals(SchemaMigrator.Kind.POSTGRESQL, outcome.kind());
        assertEquals(LATEST, outcome.version());
        assertEquals(entityColumns(), tables(postgresql));
        // a second start on the migrated database changes nothing
        assertEquals(0, SchemaMigrator.migrate(postgresql).applied());
    }

    @Test
    void shouldAdoptADerbySchemaThatEclipseLinkMadeKeepingItsRows() throws Exception {
        DataSource derby = derby("adopted");
        try (Connection c = derby.getConnection(); Statement s = c.createStatement()) {
            // the baseline as create-or-extend made it, as an older version left it: a table and a column short
            String baseline = new String(getClass().getClassLoader()
                    .getResourceAsStream("db/migration/derby/V1__baseline.sql").readAllBytes(), StandardCharsets.UTF_8);
            Matcher create = Pattern.compile("CREATE TABLE (\\w+) \\((.*?)\\n\\);", Pattern.DOTALL).matcher(baseline);
            while (create.find()) {
                if (!create.group(1).equals("DY_SNAPSHOT")) {
                    s.execute(create.group().substring(0, create.group().length() - 1)
                            .replace("    DISK_MB INTEGER,\n", ""));
                }
            }
            s.execute("INSERT INTO DY_USER (USER_ID, CREATED_AT, ROLE) VALUES ('alice', CURRENT_TIMESTAMP, 'USER')");
        }
        SchemaMigrator.Outcome outcome = SchemaMigrator.migrate(derby);
        assertTrue(outcome.adopted());
        assertEquals(LATEST, outcome.version());
        assertEquals(entityColumns(), tables(derby));
        try (Connection c = derby.getConnection(); Statement s = c.createStatement();
             ResultSet users = s.executeQuery("SELECT USER_ID FROM DY_USER")) {
            assertTrue(users.next());
            assertEquals("alice", users.getString(1));
        }
        try (Connection c = derby.getConnection(); Statement s = c.createStatement();
             ResultSet history = s.executeQuery("SELECT \"version\", \"type\" FROM \"flyway_schema_history\" ORDER BY \"installed_rank\"")) {
            assertTrue(history.next());
            assertEquals("1", history.getString(1));
            assertEquals("BASELINE", history.getString(2));
            assertTrue(history.next());
            assertEquals("2", history.getString(1));
        }
    }

    private static DataSource derby(String name) throws IOException {
        Path dir = Files.createTempDirectory("dockyard-migrations-" + name);
        EmbeddedDataSource ds = new EmbeddedDataSource();
        ds.setDatabaseName(dir.resolve("db").toString());
        ds.setCreateDatabase("create");
        return ds;
    }

    /** A fresh schema in the database the project's script runs, for this test alone. */
    private static DataSource postgresql() throws Exception {
        Process script = new ProcessBuilder("bash", REPO.resolve("docker/ensure-postgresql.sh").toString(),
                "dockyard_migrations_test").redirectErrorStream(true).start();
        String out = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(script.waitFor(300, TimeUnit.SECONDS), "ensure-postgresql.sh did not finish");
        assertEquals(0, script.exitValue(), "ensure-postgresql.sh: " + out);
        String url = out.lines().filter(l -> l.startsWith("jdbc:postgresql:")).reduce((a, b) -> b).orElseThrow();
        String dir = System.getenv().getOrDefault("DOCKYARD_PG_DIR", "/var/lib/dockyard-postgresql");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url);
        ds.setUser("dockyard");
        ds.setPassword(Files.readString(Path.of(dir, "password")).strip());
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS public CASCADE");
            s.execute("CREATE SCHEMA public");
        }
        return ds;
    }

    /** Table → columns (upper case) of every entity in persistence.xml, the lease's included. */
    private static Map<String, Set<String>> entityColumns() throws Exception {
        String xml = new String(SchemaMigratorTest.class.getClassLoader()
                .getResourceAsStream("META-INF/persistence.xml").readAllBytes(), StandardCharsets.UTF_8);
        Map<String, Set<String>> tables = new TreeMap<>();
        Matcher classes = Pattern.compile("<class>([\\w.]+)</class>").matcher(xml);
        while (classes.find()) {
            Class<?> type = Class.forName(classes.group(1));
            if (!type.isAnnotationPresent(Entity.class)) {
                continue;
            }
            Table table = type.getAnnotation(Table.class);
            Set<String> columns = new TreeSet<>();
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || Modifier.isTransient(field.getModifiers())
                        || field.isAnnotationPresent(Transient.class)) {
                    continue;
                }
                Column column = field.getAnnotation(Column.class);
                String name = column == null || column.name().isEmpty() ? field.getName() : column.name();
                columns.add(name.toUpperCase(Locale.ROOT));
            }
            tables.put(table.name().toUpperCase(Locale.ROOT), columns);
        }
        assertEquals(12, tables.size(), "entities in persistence.xml: " + tables.keySet());
        return tables;
    }

    /** Table → columns (upper case) of Dockyard's tables in the database. */
    private static Map<String, Set<String>> tables(DataSource ds) throws SQLException {
        Map<String, Set<String>> tables = new TreeMap<>();
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getColumns(null, c.getSchema(), "%", "%")) {
                while (rs.next()) {
                    String table = rs.getString("TABLE_NAME").toUpperCase(Locale.ROOT);
                    if (table.startsWith("DY_")) {
                        tables.computeIfAbsent(table, t -> new TreeSet<>())
                                .add(rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT));
                    }
                }
            }
        }
        return tables;
    }
}
