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
 * {@code dockyard.instance.id} names this process, for leases and heartbeats ({@link #process()} names
 * this start of it, for the work it has under way). Without it the id is
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

    /** Between an instance id and the start it names in a {@link #process()}. */
    public static final char PROCESS_SEPARATOR = '#';

    private String id;
    private String process;

    public ControlPlaneInstance() {
    }

    /** For tests: an instance of a fixed id with leases of the given time to live, started once. */
    public static ControlPlaneInstance of(String id, Duration leaseTtl) {
        return of(id, "1", leaseTtl);
    }

    /** For tests: the start {@code start} of the instance {@code id}. */
    public static ControlPlaneInstance of(String id, String start, Duration leaseTtl) {
        ControlPlaneInstance instance = new ControlPlaneInstance();
        instance.id = id;
        instance.process = id + PROCESS_SEPARATOR + start;
        instance.leaseTtlSeconds = leaseTtl.toSeconds();
        return instance;
    }

    @PostConstruct
    void init() {
        id = configuredId.map(String::strip).filter(s -> !s.isEmpty())
                .orElseGet(() -> "derby".equals(databaseKind) ? config.instance()
                        : config.instance() + "-" + random());
        process = id + PROCESS_SEPARATOR + random();
    }

    private static String random() {
        return HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
    }

    public String id() {
        return id;
    }

    /**
     * This process: the instance id and a suffix new at each start. Work in progress (a claimed
     * idempotency key, a provision) names the process, not the instance: an instance restarted
     * under a fixed id (a StatefulSet's pod name, {@code cp1} in the operations guide) is alive
     * again, but the work its earlier process had under way is not, and must be taken over.
     */
    public String process() {
        return process;
    }

    /** Whether {@code process} is an earlier start of this instance: gone, as one process runs per instance id. */
    public boolean earlierSelf(String process) {
        return !process.equals(this.process)
                && (process.equals(id) || process.startsWith(id + PROCESS_SEPARATOR));
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
