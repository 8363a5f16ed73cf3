package dev.dockyard.config;

/**
 * The order in which the control plane's startup beans run. The schema's migrations come first:
 * every startup bean that touches the database names them in {@code @DependsOn}. The name lives
 * here, with the settings every package may read, and not on the migrations' bean in
 * {@code persistence}: a timer of the pools or the cluster naming that class would make its
 * package depend on {@code persistence} in the source (the compiler inlines the constant, so the
 * class files would not show it), while {@code persistence} depends on the pools for their
 * repository.
 */
public final class StartupOrder {

    /** The EJB name of {@code persistence.SchemaMigrations}, the bean every database user waits for. */
    public static final String SCHEMA_MIGRATIONS = "SchemaMigrations";

    private StartupOrder() {
    }
}
