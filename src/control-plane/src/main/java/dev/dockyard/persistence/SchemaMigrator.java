package dev.dockyard.persistence;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings a database to the schema this version expects with Flyway's versioned migrations, one
 * folder per database kind ({@code db/migration/derby}, {@code db/migration/postgresql}): the
 * same versions, each written in its database's dialect.
 *
 * <p>Before migrations, EclipseLink created and extended the tables itself. A database it made
 * has Dockyard's tables but no history: it is <em>adopted</em> at version 1 (Flyway's baseline),
 * after this class has brought it up to version 1 the way EclipseLink would have, creating a
 * missing table and adding a missing column (nullable) from {@code V1__baseline.sql}, so that a
 * database last opened by an older version upgrades too. The baseline is written one column per
 * line for that reason.
 *
 * <p>Each folder holds an empty {@code flyway.location}: Liberty's class loader lists a folder's
 * resources only through a file in it (as WebSphere's does), which Flyway looks for. Flyway's
 * callback folder {@code db/callback} has one too, and nothing else: Dockyard has no callbacks.
 *
 * <p>Several control planes starting together on one PostgreSQL database are safe: Flyway holds
 * an advisory lock while it migrates.
 */
public final class SchemaMigrator {

    private static final Logger LOG = Logger.getLogger(SchemaMigrator.class.getName());
    /** A table that has been in every schema Dockyard ever made: its presence means EclipseLink's schema. */
    private static final String MARKER_TABLE = "DY_RUNTIME";
    private static final String HISTORY_TABLE = "flyway_schema_history";
    private static final Pattern CREATE_TABLE = Pattern.compile("CREATE TABLE (\\w+) \\((.*?)\\n\\);", Pattern.DOTALL);
    private static final Pattern CREATE_INDEX = Pattern.compile("CREATE INDEX \\w+ ON (\\w+) \\([^)]*\\);");

    /** The database kinds with migrations, by {@link DatabaseMetaData#getDatabaseProductName()}. */
    public enum Kind {
        DERBY("derby"), POSTGRESQL("postgresql");

        private final String folder;

        Kind(String folder) {
            this.folder = folder;
        }

        public String location() {
            return "classpath:db/migration/" + folder;
        }

        String baselineResource() {
            return "db/migration/" + folder + "/V1__baseline.sql";
        }

        static Kind of(String productName) {
            String name = productName.toLowerCase(Locale.ROOT);
            if (name.contains("derby")) {
                return DERBY;
            }
            if (name.contains("postgres")) {
                return POSTGRESQL;
            }
            throw new IllegalStateException("Dockyard has no schema migrations for the database " + productName
                    + " (derby and postgresql only)");
        }
    }

    /** What a migration did: the kind, whether an older schema was adopted, the versions applied. */
    public record Outcome(Kind kind, boolean adopted, int applied, String version) {
    }

    /** The longest pause between two tries of a database that does not answer yet. */
    private static final long MAX_PAUSE_MS = 8000;

    private SchemaMigrator() {
    }

    /**
     * As {@link #migrate}, waiting up to {@code wait} for a database that does not answer yet (a
     * control plane started while its database restarts, or before it in a deployment's start
     * order): the application starts once the database answers, instead of failing to deploy for
     * good. Any other failure, or a database still away at the end, fails as before.
     */
    public static Outcome migrateOnceReachable(DataSource dataSource, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        long pauseMs = 1000;
        while (true) {
            try {
                return migrate(dataSource);
            } catch (RuntimeException e) {
                if (!DatabaseOutage.causes(e) || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) > deadline) {
                    throw e;
                }
                LOG.warning("The database does not answer yet (" + e.getMessage() + "); the schema's migration is "
                        + "tried again in " + pauseMs / 1000 + " s, and the control plane starts once it answers");
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
            }
        }
    }

    public static Outcome migrate(DataSource dataSource) {
        Kind kind;
        boolean adopt;
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metadata = connection.getMetaData();
            kind = Kind.of(metadata.getDatabaseProductName());
            String schema = connection.getSchema();
            adopt = tableExists(metadata, schema, MARKER_TABLE) && !tableExists(metadata, schema, HISTORY_TABLE);
            if (adopt) {
                int extended = extendToBaseline(connection, metadata, schema, kind);
                LOG.info("Adopting the schema EclipseLink made at version 1 of the migrations"
                        + (extended == 0 ? "" : " (" + extended + " missing tables or columns added first)"));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("The database cannot be read for its schema's migration: " + e.getMessage(), e);
        }
        MigrateResult result = Flyway.configure(SchemaMigrator.class.getClassLoader())
                .dataSource(dataSource)
                .locations(kind.location())
                // a build that lost its scripts must not baseline a database and call it migrated
                .failOnMissingLocations(true)
                .table(HISTORY_TABLE)
                .baselineOnMigrate(true)
                .baselineVersion("1")
                .baselineDescription("adopted: the schema EclipseLink created before migrations")
                .load()
                .migrate();
        String version = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
        if (result.migrationsExecuted > 0) {
            LOG.info("Schema migrated on " + kind + ": " + result.migrationsExecuted + " migrations, now at version "
                    + version);
        }
        return new Outcome(kind, adopt, result.migrationsExecuted, version);
    }

    /** Creates the baseline's missing tables and adds its missing columns (nullable, as EclipseLink did). */
    private static int extendToBaseline(Connection connection, DatabaseMetaData metadata, String schema, Kind kind)
            throws SQLException {
        String baseline = baseline(kind);
        List<String> statements = new ArrayList<>();
        Matcher table = CREATE_TABLE.matcher(baseline);
        while (table.find()) {
            String name = table.group(1);
            if (!tableExists(metadata, schema, name)) {
                statements.add(table.group().substring(0, table.group().length() - 1));
                Matcher index = CREATE_INDEX.matcher(baseline);
                while (index.find()) {
                    if (index.group(1).equals(name)) {
                        statements.add(index.group().substring(0, index.group().length() - 1));
                    }
                }
                continue;
            }
            Set<String> existing = columns(metadata, schema, name);
            for (String line : table.group(2).split("\n")) {
                String column = line.strip().replaceAll(",$", "");
                if (column.isEmpty() || column.startsWith("PRIMARY KEY") || column.startsWith("CONSTRAINT")) {
                    continue;
                }
                String columnName = column.substring(0, column.indexOf(' '));
                if (!existing.contains(columnName)) {
                    statements.add("ALTER TABLE " + name + " ADD COLUMN " + column.replace(" NOT NULL", ""));
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        return statements.size();
    }

    private static String baseline(Kind kind) {
        try (InputStream in = SchemaMigrator.class.getClassLoader().getResourceAsStream(kind.baselineResource())) {
            if (in == null) {
                throw new IllegalStateException("missing " + kind.baselineResource());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Derby folds unquoted names to upper case, PostgreSQL to lower case: either is the table. */
    static boolean tableExists(DatabaseMetaData metadata, String schema, String name) throws SQLException {
        for (String candidate : List.of(name, name.toUpperCase(Locale.ROOT), name.toLowerCase(Locale.ROOT))) {
            try (ResultSet tables = metadata.getTables(null, schema, candidate, new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The table's column names, upper case. */
    static Set<String> columns(DatabaseMetaData metadata, String schema, String table) throws SQLException {
        Set<String> names = new HashSet<>();
        for (String candidate : List.of(table.toUpperCase(Locale.ROOT), table.toLowerCase(Locale.ROOT))) {
            try (ResultSet columns = metadata.getColumns(null, schema, candidate, null)) {
                while (columns.next()) {
                    names.add(columns.getString("COLUMN_NAME").toUpperCase(Locale.ROOT));
                }
            }
        }
        return names;
    }
}
