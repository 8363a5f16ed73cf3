package dev.dockyard.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Every knob of the control plane, from MicroProfile Config (system properties, environment
 * variables such as {@code DOCKYARD_SANDBOX_IMAGE}, server.xml variables, then the defaults in
 * META-INF/microprofile-config.properties). docs/configuration.md lists them all.
 *
 * <p>Long on purpose: the settings that several classes share (about 35 read them), each with its
 * one default and its checked accessor, in one place, so no default is written twice. Settings that
 * one class reads live beside it instead (e.g. {@code backend.kubernetes.KubernetesNodeConfig},
 * {@code backend.remote.RemoteNodeConfig}).
 */
@ApplicationScoped
public class DockyardConfig {

    @Inject
    @ConfigProperty(name = "dockyard.bootstrap.admin-key")
    Optional<String> bootstrapAdminKey;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.image", defaultValue = "dockyard/sandbox:latest")
    String sandboxImage;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.cpus", defaultValue = "1.0")
    double sandboxCpus;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.boot-cpus", defaultValue = "0")
    double sandboxBootCpus;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.memory-mb", defaultValue = "1024")
    int sandboxMemoryMb;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.timeout", defaultValue = "120")
    int sandboxTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.pids-limit", defaultValue = "1024")
    long sandboxPidsLimit;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.user", defaultValue = "1000")
    String sandboxUser;

    /**
     * An executor sandbox's root file system is read-only unless its request says otherwise
     * (sandbox.readOnlyRoot); its writable places are the workspace and home volumes, tmpfs and
     * the key directory's volume (docs/backends.md: Sandbox confinement).
     */
    @Inject
    @ConfigProperty(name = "dockyard.sandbox.read-only-root", defaultValue = "true")
    boolean sandboxReadOnlyRoot;

    /** The tmpfs mounts of a read-only root: path=size, comma-separated. */
    @Inject
    @ConfigProperty(name = "dockyard.sandbox.writable-paths", defaultValue = "/tmp=512m,/var/tmp=64m")
    List<String> sandboxWritablePaths;

    /** The open-file limit (soft and hard) of every sandbox process: at most the engine's own (20000 in CI). */
    @Inject
    @ConfigProperty(name = "dockyard.sandbox.nofile", defaultValue = "16384")
    long sandboxNofile;

    /** The Docker networks an admin lets requests attach sandboxes to (sandbox.networks); none by default. */
    @Inject
    @ConfigProperty(name = "dockyard.sandbox.allowed-networks")
    Optional<List<String>> sandboxAllowedNetworks;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.executor-port", defaultValue = "8000")
    int executorPort;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.max-cpus", defaultValue = "8")
    double maxCpus;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.max-memory-mb", defaultValue = "16384")
    int maxMemoryMb;

    @Inject
    @ConfigProperty(name = "dockyard.action.timeout", defaultValue = "120")
    int actionTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.actions.max-timeout-seconds", defaultValue = "3600")
    int maxActionTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.quota.max-runtimes", defaultValue = "10")
    int quotaMaxRuntimes;

    @Inject
    @ConfigProperty(name = "dockyard.quota.max-cpus", defaultValue = "8")
    double quotaMaxCpus;

    @Inject
    @ConfigProperty(name = "dockyard.quota.max-memory-mb", defaultValue = "16384")
    int quotaMaxMemoryMb;

    @Inject
    @ConfigProperty(name = "dockyard.credentials.refresh-window", defaultValue = "300")
    int credentialRefreshWindowSeconds;

    /**
     * The variables a program of another image finds the sandbox's key in: OpenHands' agent
     * server reads OH_SESSION_API_KEYS_0, its legacy action server SESSION_API_KEY.
     */
    @Inject
    @ConfigProperty(name = "dockyard.programs.session-key-variables", defaultValue = "SESSION_API_KEY,OH_SESSION_API_KEYS_0")
    List<String> programSessionKeyVariables;

    /** Hosts whose token endpoints may be plain http (a company's own identity provider, a test's). */
    @Inject
    @ConfigProperty(name = "dockyard.credentials.allowed-token-hosts")
    Optional<List<String>> allowedTokenHosts;

    /** The services' listener (server.xml's second httpEndpoint): runtimes' service URLs. */
    @Inject
    @ConfigProperty(name = "dockyard.proxy.port", defaultValue = "9081")
    int proxyPort;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.mode", defaultValue = "path")
    String proxyMode;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.public-url")
    Optional<String> proxyPublicUrl;

    /**
     * The setting before the services had a port of their own: the API's address, where service
     * URLs were. No longer read (it would put them back on the API's origin); a warning says so.
     */
    @Inject
    @ConfigProperty(name = "dockyard.public-url")
    Optional<String> legacyPublicUrl;

    /** The Remote Runtime API's ports inside an image running its own server (OpenHands' agent server's). */
    @Inject
    @ConfigProperty(name = "dockyard.runtime-api.agent-port", defaultValue = "60000")
    int runtimeApiAgentPort;

    @Inject
    @ConfigProperty(name = "dockyard.runtime-api.vscode-port", defaultValue = "60001")
    int runtimeApiVscodePort;

    @Inject
    @ConfigProperty(name = "dockyard.runtime-api.work-ports", defaultValue = "12000,12001")
    List<Integer> runtimeApiWorkPorts;

    /** Warm pools declared in configuration: their names; each pool's settings under dockyard.pool.<name>.*. */
    @Inject
    @ConfigProperty(name = "dockyard.pools")
    Optional<List<String>> pools;

    /** How often every pool is checked and topped up (seconds); a claim also tops its pool up at once. */
    @Inject
    @ConfigProperty(name = "dockyard.pools.tend-interval", defaultValue = "5")
    int poolTendIntervalSeconds;

    /**
     * Refills yield to claims: a pool boots no new member until this long after its last claim
     * (milliseconds; 0: at once), so that a burst of claims does not share two cores with a
     * burst of JVMs booting. Never while its queue is empty, and never for more than ten times
     * this in a row under a steady stream of claims.
     */
    @Inject
    @ConfigProperty(name = "dockyard.pools.refill-delay-ms", defaultValue = "1500")
    long poolRefillDelayMs;

    /** The most sandboxes one pool may keep ready. */
    @Inject
    @ConfigProperty(name = "dockyard.pools.max-size", defaultValue = "100")
    int poolMaxSize;

    @Inject
    @ConfigProperty(name = "dockyard.fault-injection", defaultValue = "false")
    boolean faultInjection;

    @Inject
    @ConfigProperty(name = "dockyard.instance", defaultValue = "default")
    String instance;

    @Inject
    @ConfigProperty(name = "dockyard.reconciler.grace", defaultValue = "20")
    int reconcilerGraceSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.reconciler.disconnected-grace", defaultValue = "300")
    int disconnectedGraceSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.provisioning.max-concurrent-boots")
    Optional<String> maxConcurrentBoots;

    @Inject
    @ConfigProperty(name = "dockyard.migration.drain-timeout", defaultValue = "10")
    int migrationDrainSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.docker.host")
    Optional<String> dockerHost;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.browser-image", defaultValue = "dockyard/sandbox-browser:latest")
    String sandboxBrowserImage;

    @Inject
    @ConfigProperty(name = "dockyard.images.repository", defaultValue = "dockyard/runtime")
    String imageRepository;

    /** Patterns of the images on an engine that every user may run (ImageAccess); none by default. */
    @Inject
    @ConfigProperty(name = "dockyard.images.allowed")
    Optional<List<String>> imagesAllowed;

    @Inject
    @ConfigProperty(name = "dockyard.images.bundle", defaultValue = "executor-bundle")
    String imageBundle;

    @Inject
    @ConfigProperty(name = "dockyard.images.build-timeout", defaultValue = "1800")
    int imageBuildTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.repository.setup-timeout", defaultValue = "300")
    int repositorySetupTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.nodes", defaultValue = "local")
    List<String> nodes;

    @Inject
    @ConfigProperty(name = "dockyard.nodes.health-interval", defaultValue = "10")
    int nodeHealthIntervalSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.placement.retry-after", defaultValue = "10")
    int placementRetryAfterSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.lifecycle.idle-timeout", defaultValue = "0")
    int idleTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.lifecycle.ttl", defaultValue = "0")
    int ttlSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.lifecycle.hibernate-after", defaultValue = "0")
    int hibernateAfterSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.lifecycle.sweep-interval", defaultValue = "10")
    int sweepIntervalSeconds;

    public Optional<String> bootstrapAdminKey() {
        return bootstrapAdminKey.filter(k -> !k.isBlank());
    }

    public String sandboxImage() {
        return sandboxImage;
    }

    public double sandboxCpus() {
        return sandboxCpus;
    }

    /**
     * CPU limit while a sandbox boots, before it settles to its own: 0 means none. The executor's
     * JVM boots in parallel on every core it gets; capping it at one core costs most of a second.
     */
    public double sandboxBootCpus() {
        return sandboxBootCpus;
    }

    public int sandboxMemoryMb() {
        return sandboxMemoryMb;
    }

    /** How long a sandbox may take from create to ready before provisioning gives up. */
    public Duration sandboxTimeout() {
        return Duration.ofSeconds(sandboxTimeoutSeconds);
    }

    public long sandboxPidsLimit() {
        return sandboxPidsLimit;
    }

    public String sandboxUser() {
        return sandboxUser;
    }

    public boolean sandboxReadOnlyRoot() {
        return sandboxReadOnlyRoot;
    }

    /** The tmpfs mounts of a read-only root: path → size (e.g. 512m). */
    public Map<String, String> sandboxWritablePaths() {
        Map<String, String> paths = new LinkedHashMap<>();
        for (String entry : sandboxWritablePaths) {
            String[] parts = entry.strip().split("=", 2);
            if (parts.length != 2 || !parts[0].startsWith("/") || !parts[1].matches("[0-9]+[kmg]?")) {
                throw new IllegalStateException("dockyard.sandbox.writable-paths: '" + entry
                        + "' is not an absolute path=size (e.g. /tmp=512m)");
            }
            paths.put(parts[0], parts[1]);
        }
        return paths;
    }

    public long sandboxNofile() {
        return sandboxNofile;
    }

    /**
     * {@code dockyard.images.allowed}: patterns ({@code *} any characters) of the images on an engine,
     * neither Dockyard's nor a user's, that every user may run; empty: only admins may.
     */
    public List<String> imagesAllowed() {
        return imagesAllowed == null ? List.of() : imagesAllowed.orElse(List.of()).stream().map(String::strip)
                .filter(p -> !p.isEmpty()).toList();
    }

    /** The networks a request may name in sandbox.networks. */
    public Set<String> sandboxAllowedNetworks() {
        return sandboxAllowedNetworks == null ? Set.of() : sandboxAllowedNetworks.orElse(List.of()).stream()
                .map(String::strip).filter(n -> !n.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }

    /** The sandbox user's numeric uid (the user part of dockyard.sandbox.user), which runtime images are built for. */
    public int sandboxUid() {
        try {
            return Integer.parseInt(sandboxUser.split(":")[0]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("dockyard.sandbox.user must be numeric (uid[:gid]), not '" + sandboxUser
                    + "'", e);
        }
    }

    /** The image a runtime with the browser plugin gets when it names none (the default image plus Chromium). */
    public String sandboxBrowserImage() {
        return sandboxBrowserImage;
    }

    /** Where runtime images are tagged (versioned, lock and source tags). */
    public String imageRepository() {
        return imageRepository;
    }

    /** The executor bundle every runtime image carries (target/executor-bundle of the executor module). */
    public Path imageBundle() {
        return Path.of(imageBundle);
    }

    /** How long a repository's setup script may run at provisioning. */
    public Duration repositorySetupTimeout() {
        return Duration.ofSeconds(repositorySetupTimeoutSeconds);
    }

    public Duration imageBuildTimeout() {
        return Duration.ofSeconds(imageBuildTimeoutSeconds);
    }

    /** This control plane's version: the {@code v} of runtime image tags. */
    public String version() {
        return VERSION;
    }

    private static final String VERSION = readVersion();

    private static String readVersion() {
        Properties build = new Properties();
        try (InputStream in = DockyardConfig.class.getResourceAsStream("/dev/dockyard/build.properties")) {
            if (in != null) {
                build.load(in);
            }
        } catch (IOException e) {
            // the fallback below
        }
        return build.getProperty("version", "0").replace("-SNAPSHOT", "");
    }

    /** The services' listener's port (dockyard.proxy.port). */
    public int proxyPort() {
        return proxyPort;
    }

    /**
     * The public base of runtimes' service URLs ({@link ServiceUrls}) for a client that reached the
     * API with this scheme and host: the services' port on the same host, in the configured mode,
     * unless dockyard.proxy.public-url names where clients reach it.
     */
    public String servicesBase(String scheme, String host) {
        String configured = proxyPublicUrl.map(String::strip).filter(u -> !u.isEmpty()).orElse(null);
        return ServiceUrls.publicBase(ServiceUrls.Mode.of(proxyMode), configured, scheme, host, proxyPort);
    }

    /**
     * The services' settings checked when the application starts, so a wrong one stops it with its
     * name rather than failing every answer that hands out a URL.
     */
    void checkServiceSettings(@Observes Startup started) {
        ServiceUrls.Mode mode = ServiceUrls.Mode.of(proxyMode);
        proxyPublicUrl.map(String::strip).filter(u -> !u.isEmpty())
                .ifPresent(url -> ServiceUrls.publicBase(mode, url, "http", "localhost", proxyPort));
        if (legacyPublicUrl.isPresent()) {
            Logger.getLogger(DockyardConfig.class.getName()).warning("dockyard.public-url is no longer read: runtimes'"
                    + " service URLs are on their own port now; set dockyard.proxy.public-url to where clients reach it");
        }
    }

    public int executorPort() {
        return executorPort;
    }

    public double maxCpus() {
        return maxCpus;
    }

    public int maxMemoryMb() {
        return maxMemoryMb;
    }

    /** Default hard timeout of an action that names none, as in OpenHands' sandbox config. */
    public Duration actionTimeout() {
        return Duration.ofSeconds(actionTimeoutSeconds);
    }

    /**
     * The longest hard timeout an action may ask for (at least one second): the control plane's
     * read of the executor's answer lasts that long plus a grace, so without a bound one action
     * could hold a request thread for weeks.
     */
    public Duration maxActionTimeout() {
        return Duration.ofSeconds(Math.max(1, maxActionTimeoutSeconds));
    }

    /** Default per-user limit on live runtimes (admins may override it per user). */
    public int quotaMaxRuntimes() {
        return quotaMaxRuntimes;
    }

    /** Default per-user limit on the CPUs of all live runtimes together. */
    public double quotaMaxCpus() {
        return quotaMaxCpus;
    }

    /** Default per-user limit on the memory of all live runtimes together. */
    public int quotaMaxMemoryMb() {
        return quotaMaxMemoryMb;
    }

    /** Credentials expiring within this window are refreshed before injection and while runtimes live. */
    public Duration credentialRefreshWindow() {
        return Duration.ofSeconds(credentialRefreshWindowSeconds);
    }

    /** Whether provisioning honours X-Dockyard-Fail-At (chaos tests; never in production). */
    public boolean faultInjection() {
        return faultInjection;
    }

    /** This control plane's name on the sandboxes it owns (label dev.dockyard.control-plane). */
    public String instance() {
        return instance;
    }

    /**
     * How old a sandbox without a live runtime (or a starting runtime nobody provisions) must be
     * before the reconciler removes it: room for a stop or a start that is under way right now.
     */
    public Duration reconcilerGrace() {
        return Duration.ofSeconds(reconcilerGraceSeconds);
    }

    /**
     * How long a runtime may stay ERROR_RUNTIME_DISCONNECTED (its sandbox gone, stopped or not
     * answering) before the reconciler releases it: ERROR, sandbox removed, conversation and quota
     * freed. Until then a sandbox that answers again brings it back to READY.
     */
    public Duration disconnectedGrace() {
        return Duration.ofSeconds(disconnectedGraceSeconds);
    }

    /**
     * {@code dockyard.node.<name>.disconnected-grace} (seconds, 1 or more): the {@link
     * #disconnectedGrace()} of the runtimes on that node, for a node that is expected to be away longer
     * than a sandbox is (a remote control plane restarted for an upgrade); {@link #disconnectedGrace()}
     * when not set.
     */
    public Duration disconnectedGrace(String node) {
        String key = "dockyard.node." + node + ".disconnected-grace";
        return seconds(key, ConfigProvider.getConfig().getOptionalValue(key, String.class))
                .orElseGet(this::disconnectedGrace);
    }

    /** A setting of whole seconds, 1 or more; empty when not set (or blank). */
    static Optional<Duration> seconds(String key, Optional<String> value) {
        return positive(key, value, "seconds").map(Duration::ofSeconds);
    }

    /** A setting that is a whole number ({@code what}), 1 or more; empty when not set (or blank). */
    static Optional<Long> positive(String key, Optional<String> value, String what) {
        return value.map(String::strip).filter(v -> !v.isEmpty()).map(v -> {
            try {
                long number = Long.parseLong(v);
                if (number >= 1) {
                    return number;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new IllegalStateException(key + ": '" + v + "' is not a whole number of " + what + ", 1 or more");
        });
    }

    /**
     * How many sandboxes {@code node} boots at once (BootTurns); the others wait their turn, and
     * their readiness limit counts from it. {@code dockyard.node.<name>.max-concurrent-boots}, else
     * for the nodes whose machine this control plane loads (docker, local, cli) {@code
     * dockyard.provisioning.max-concurrent-boots}, else twice this machine's processors; a
     * Kubernetes or remote node, whose cluster or control plane bounds its own boots, is unbounded
     * unless its own setting says otherwise.
     */
    public int maxConcurrentBoots(String node) {
        String own = "dockyard.node." + node + ".max-concurrent-boots";
        Optional<Long> set = positive(own, ConfigProvider.getConfig().getOptionalValue(own, String.class), "boots");
        if (set.isPresent()) {
            return (int) Math.min(set.get(), Integer.MAX_VALUE);
        }
        // the node's type as backend.NodeType reads it (which validates it at the start)
        String type = ConfigProvider.getConfig().getOptionalValue("dockyard.node." + node + ".type", String.class)
                .map(t -> t.strip().toLowerCase(Locale.ROOT)).orElse("docker");
        if (type.equals("kubernetes") || type.equals("remote")) {
            return Integer.MAX_VALUE;
        }
        return positive("dockyard.provisioning.max-concurrent-boots", maxConcurrentBoots, "boots")
                .map(n -> (int) Math.min(n, Integer.MAX_VALUE))
                .orElseGet(() -> 2 * Runtime.getRuntime().availableProcessors());
    }

    /** How long a migration waits for the actions running in the source to finish before it is refused. */
    public Duration migrationDrainTimeout() {
        return Duration.ofSeconds(migrationDrainSeconds);
    }

    /**
     * The backend nodes, the default first: names of 1 to 63 lower-case letters, digits and dashes
     * (they appear in runtime bodies and configuration keys).
     */
    public List<String> nodes() {
        return nodeNames(nodes);
    }

    /** The node names of a {@code dockyard.nodes} value, checked (see {@link #nodes()}). */
    public static List<String> nodeNames(List<String> nodes) {
        List<String> names = nodes.stream().map(String::strip).filter(n -> !n.isEmpty()).distinct().toList();
        for (String name : names) {
            if (!name.matches("[a-z0-9][a-z0-9-]{0,62}")) {
                throw new IllegalStateException("dockyard.nodes: '" + name + "' is not a node name "
                        + "(lower-case letters, digits and dashes)");
            }
        }
        return names.isEmpty() ? List.of("local") : names;
    }

    /** How often every backend node's health is probed (at least every second). */
    public Duration nodeHealthInterval() {
        return Duration.ofSeconds(Math.max(1, nodeHealthIntervalSeconds));
    }

    /** The Retry-After (seconds) of a provision refused because no node has room or health for it. */
    public int placementRetryAfterSeconds() {
        return Math.max(1, placementRetryAfterSeconds);
    }

    /**
     * {@code dockyard.node.<name>.placement}: {@code any} (runtimes that name no node may go there)
     * or {@code explicit} (only runtimes that name it); empty when not set, which means {@code explicit}
     * for a {@code cli} node and {@code any} for the others.
     */
    public Optional<String> nodePlacement(String node) {
        return ConfigProvider.getConfig().getOptionalValue("dockyard.node." + node + ".placement", String.class)
                .map(String::strip).filter(v -> !v.isEmpty());
    }

    /**
     * {@code dockyard.node.<name>.allowed-users}: the user ids (comma-separated; {@code *} for every
     * user) besides admins who may place runtimes on the node; empty when not set, which means every
     * user for docker, kubernetes and remote nodes and admins only for cli and local nodes (see
     * {@link dev.dockyard.placement.NodeAccess}).
     */
    public Optional<Set<String>> nodeAllowedUsers(String node) {
        return ConfigProvider.getConfig().getOptionalValue("dockyard.node." + node + ".allowed-users", String.class)
                .map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(u -> !u.isEmpty())
                        .collect(Collectors.toUnmodifiableSet()));
    }

    /** {@code dockyard.node.<name>.max-runtimes}: live runtimes the node may hold; empty is unbounded. */
    public Optional<Integer> nodeMaxRuntimes(String node) {
        return nodeLimit(node, "max-runtimes");
    }

    /** {@code dockyard.node.<name>.max-memory-mb}: the sum of its runtimes' memory (MB); empty is unbounded. */
    public Optional<Integer> nodeMaxMemoryMb(String node) {
        return nodeLimit(node, "max-memory-mb");
    }

    private static Optional<Integer> nodeLimit(String node, String setting) {
        String key = "dockyard.node." + node + "." + setting;
        Optional<Integer> limit = ConfigProvider.getConfig().getOptionalValue(key, String.class)
                .map(String::strip).filter(v -> !v.isEmpty()).map(v -> {
                    try {
                        return Integer.valueOf(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalStateException(key + ": '" + v + "' is not a whole number");
                    }
                });
        if (limit.isPresent() && limit.get() < 0) {
            throw new IllegalStateException(key + " must be 0 (takes no new runtimes) or more");
        }
        return limit;
    }

    /** The first node's Docker endpoint; empty means DOCKER_HOST or the local socket. */
    public Optional<String> dockerHost() {
        return dockerHost.filter(h -> !h.isBlank());
    }

    /** Hosts an admin allows for OAuth2 token endpoints beyond the https default, lower case. */
    public Set<String> allowedTokenHosts() {
        return allowedTokenHosts == null ? Set.of() : allowedTokenHosts.orElse(List.of()).stream()
                .map(h -> h.strip().toLowerCase(Locale.ROOT)).filter(h -> !h.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    public List<String> programSessionKeyVariables() {
        return programSessionKeyVariables.stream().map(String::strip).filter(v -> !v.isEmpty()).toList();
    }

    /** The names of the pools declared in configuration (dockyard.pools). */
    public List<String> pools() {
        return pools == null ? List.of() : pools.orElse(List.of()).stream().map(String::strip)
                .filter(n -> !n.isEmpty()).distinct().toList();
    }

    public Duration poolTendInterval() {
        return Duration.ofSeconds(Math.max(1, poolTendIntervalSeconds));
    }

    public Duration poolRefillDelay() {
        return Duration.ofMillis(Math.max(0, poolRefillDelayMs));
    }

    public int poolMaxSize() {
        return poolMaxSize;
    }

    public int runtimeApiAgentPort() {
        return runtimeApiAgentPort;
    }

    public int runtimeApiVscodePort() {
        return runtimeApiVscodePort;
    }

    public List<Integer> runtimeApiWorkPorts() {
        return runtimeApiWorkPorts == null ? List.of() : List.copyOf(runtimeApiWorkPorts);
    }

    /** A runtime's idle timeout when its request names none, in seconds; 0: never paused for idleness. */
    public int idleTimeoutSeconds() {
        return Math.max(0, idleTimeoutSeconds);
    }

    /** A runtime's TTL (hard cap on its life) when its request names none, in seconds; 0: none. */
    public int ttlSeconds() {
        return Math.max(0, ttlSeconds);
    }

    /** How long a runtime stays PAUSED before it is hibernated (container stopped); zero: never. */
    public Duration hibernateAfter() {
        return Duration.ofSeconds(Math.max(0, hibernateAfterSeconds));
    }

    /** How often the idle lifecycle looks at the runtimes (idle, TTL, hibernation), at least 1 s. */
    public Duration sweepInterval() {
        return Duration.ofSeconds(Math.max(1, sweepIntervalSeconds));
    }

    // Workspaces, disk limits and snapshots (docs/user-guide.md: "Workspaces, disk limits, snapshots and forks")

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.disk-mb", defaultValue = "4096")
    int sandboxDiskMb;

    /** The home disk of a read-only root, bounded like the workspace where disks are (issue 26: it filled the host). */
    @Inject
    @ConfigProperty(name = "dockyard.sandbox.home-mb", defaultValue = "1024")
    int sandboxHomeMb;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.max-disk-mb", defaultValue = "65536")
    int maxDiskMb;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.disk-limit", defaultValue = "auto")
    String diskLimit;

    @Inject
    @ConfigProperty(name = "dockyard.workspaces.dir", defaultValue = "/var/lib/dockyard/workspaces")
    String workspacesDir;

    @Inject
    @ConfigProperty(name = "dockyard.quota.max-snapshots", defaultValue = "20")
    int quotaMaxSnapshots;

    @Inject
    @ConfigProperty(name = "dockyard.quota.max-snapshot-mb", defaultValue = "20480")
    int quotaMaxSnapshotMb;

    /** The workspace disk of a sandbox whose request names none, in MB (where disks are bounded). */
    public int sandboxDiskMb() {
        return sandboxDiskMb;
    }

    /** The home disk of a read-only root's sandbox, in MB (where disks are bounded), at least 16. */
    public int sandboxHomeMb() {
        return Math.max(16, sandboxHomeMb);
    }

    /** The largest {@code sandbox.diskMb} a request may ask for. */
    public int maxDiskMb() {
        return maxDiskMb;
    }

    /**
     * How workspaces are bounded: {@code auto} (loop-mounted ext4 disks where this host allows,
     * else unbounded volumes, said in the log), {@code loop} (the same, but an impossibility is an
     * error at start), {@code none} (unbounded volumes).
     */
    public String diskLimit() {
        return diskLimit == null ? "auto" : diskLimit.strip().toLowerCase(Locale.ROOT);
    }

    /** Where bounded workspace disks (image files and loop links) are kept on the engine's host. */
    public Path workspacesDir() {
        return Path.of(workspacesDir);
    }

    /** Snapshots a user may keep at once. */
    public int quotaMaxSnapshots() {
        return quotaMaxSnapshots;
    }

    /** MB of snapshots (committed layers and workspace copies, as stored) a user may keep. */
    public int quotaMaxSnapshotMb() {
        return quotaMaxSnapshotMb;
    }

    // --- egress policy (sandbox.network): see dev.dockyard.backend.EgressPolicy ---

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.network", defaultValue = "open")
    String sandboxNetwork;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.network.allowed-modes", defaultValue = "none,internal,allowlist,open")
    List<String> sandboxNetworkModes;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.network.internal-services")
    Optional<List<String>> internalServices;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.network.max-destinations", defaultValue = "32")
    int maxEgressDestinations;

    @Inject
    @ConfigProperty(name = "dockyard.sandbox.network.helper-image", defaultValue = "dockyard/egress-helper:latest")
    String egressHelperImage;

    /** The network mode of a request that names none (none, internal, allowlist, open). */
    public String sandboxNetwork() {
        return sandboxNetwork == null ? "open" : sandboxNetwork.strip();
    }

    /** The network modes users may ask for (the configured default is applied whatever this says). */
    public List<String> sandboxNetworkModes() {
        return sandboxNetworkModes == null ? List.of("none", "internal", "allowlist", "open")
                : sandboxNetworkModes.stream().map(String::strip).filter(m -> !m.isEmpty()).toList();
    }

    /** The admin's services ({@code host:port}) a sandbox of the internal mode may reach. */
    public List<String> internalServices() {
        return internalServices == null ? List.of() : internalServices.orElse(List.of()).stream().map(String::strip)
                .filter(v -> !v.isEmpty()).toList();
    }

    /** How many destinations an allowlist may name (each may resolve to several addresses). */
    public int maxEgressDestinations() {
        return maxEgressDestinations == 0 ? 32 : maxEgressDestinations;
    }

    /** The image that installs egress rules on each Docker node (docker/build-egress-helper-image.sh). */
    public String egressHelperImage() {
        return egressHelperImage == null ? "dockyard/egress-helper:latest" : egressHelperImage;
    }
}
