package dev.dockyard.cluster;

import dev.dockyard.config.DockyardConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This process among the control planes sharing a database. {@code dockyard.instance} names the
 * deployment (its containers' owner label: every process of it reconciles the same sandboxes);
 * {@code dockyard.instance.id} names this process, for leases and heartbeats. Without it the id is
 * the deployment's name and a random suffix, new at each start: a restarted process is a new
 * instance, and its earlier self's provisions are taken over like any dead instance's. On embedded
 * Derby (one process only can open it) the default id is the deployment's name itself: a restart
 * is the same instance, which renews its own leases at once instead of waiting for them to expire.
 */
@ApplicationScoped
public class ControlPlaneInstance {

    @Inject
    DockyardConfig config;

    @Inject
    @ConfigProperty(name = "dockyard.instance.id")
    Optional<String> configuredId;

    @Inject
    @ConfigProperty(name = "dockyard.leases.ttl", defaultValue = "30")
    long leaseTtlSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.db.kind", defaultValue = "derby")
    String databaseKind;

    private String id;

    public ControlPlaneInstance() {
    }

    /** For tests: an instance of a fixed id with leases of the given time to live. */
    public static ControlPlaneInstance of(String id, Duration leaseTtl) {
        ControlPlaneInstance instance = new ControlPlaneInstance();
        instance.id = id;
        instance.leaseTtlSeconds = leaseTtl.toSeconds();
        return instance;
    }

    @PostConstruct
    void init() {
        id = configuredId.map(String::strip).filter(s -> !s.isEmpty())
                .orElseGet(() -> "derby".equals(databaseKind) ? config.instance()
                        : config.instance() + "-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4)));
    }

    public String id() {
        return id;
    }

    /** The deployment's name, shared by its processes. */
    public String deployment() {
        return config.instance();
    }

    /** How long a lease lasts unless renewed (the heartbeat renews every five seconds); at least 10 s. */
    public Duration leaseTtl() {
        return Duration.ofSeconds(Math.max(10, leaseTtlSeconds));
    }
}
