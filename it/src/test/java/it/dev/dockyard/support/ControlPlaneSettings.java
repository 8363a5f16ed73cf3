package it.dev.dockyard.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one source of the end-to-end control planes' settings (environment variables, i.e. MP Config):
 * the shared control plane every suite uses ({@link ControlPlaneServer}) and the disposable one the
 * destructive suites kill and cut off ({@link DisposableControlPlane}) both start with these, so no
 * suite sees other settings depending on what ran before it.
 *
 * <p>Nodes that take only the runtimes that name them live here too, each named by the suite that
 * needs it, rather than a restart per suite: the kubernetes node ({@code k8s}, KubernetesNodeIT's
 * mock API server on a fixed port), two remote nodes (RemoteNodeIT's {@code remote1}, through its
 * answer-dropping forwarder; the executor suites' {@code remote2}, {@link RemoteNodeFixture}) and an
 * engine without gVisor ({@code plain}, SandboxConfinementIT). Their servers run only while their
 * suite does; in between the node is unhealthy, which is why the shared server's start waits for
 * its API rather than {@code /health/ready}.
 */
public final class ControlPlaneSettings {

    static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    /** The shared control plane's port (19080); the other servers of the run listen at fixed offsets from it. */
    static final int BASE_PORT = Integer.getInteger("dockyard.http-port", 19080);
    /** HighAvailabilityIT's two control planes (services 1000 above each, as for every server here). */
    public static final int HA_PORT = BASE_PORT + 201;
    /** RemoteNodeIT's second control plane ("B"). */
    public static final int REMOTE1_B_PORT = BASE_PORT + 301;
    /** RemoteNodeIT's answer-dropping forwarder in front of B: node {@code remote1}'s URL. */
    public static final int REMOTE1_PORT = BASE_PORT + 302;
    /** The executor suites' remote node: a second control plane of the run ({@link RemoteNodeFixture}). */
    static final int REMOTE2_PORT = BASE_PORT + 303;
    /** PlacementIT's control plane. */
    public static final int PLACEMENT_PORT = BASE_PORT + 305;
    /** The mock Kubernetes API server's port (KubernetesNodeIT), written into the kubeconfig below. */
    public static final int KUBERNETES_PORT = BASE_PORT + 306;
    /** StartupRehearsalIT's control plane. */
    public static final int REHEARSAL_PORT = BASE_PORT + 312;
    /** The disposable control plane, and its node2's forwarder one above. */
    static final int DISPOSABLE_PORT = BASE_PORT + 310;
    public static final String KUBERNETES_NAMESPACE = "dockyard-it";
    /**
     * The test servers' JIT: C1 only. A server of these tests lives minutes, and C2 compiling its
     * warm-up was half of its boot (measured 2026-11-28, 2 cores: 97 CPU-s to a fresh server's API,
     * 49 with C1 only; idle 4.8 against 2.5 CPU-s a minute), on a run whose wall time is CPU-bound.
     * Production servers keep both compilers (liberty/jvm.options).
     */
    public static final String TEST_JVM = "-XX:TieredStopAtLevel=1";
    /**
     * The start's rehearsal of a provision (warmup.StartupRehearsal): off on the test servers, whose
     * suites count what their server did (MetricsIT's counters, the audit, the nodes' runtimes);
     * StartupRehearsalIT has a server of its own with it on.
     */
    public static final String REHEARSAL = "false";
    public static final String PLAIN_ENGINE = "plain";
    /** The one user besides the admins that node {@code cli1} is open to (CliBackendIT). */
    public static final String CLI_GRANTED_USER = "it-cli-granted";

    private ControlPlaneSettings() {
    }

    /** The kubeconfig of the {@code k8s} node: the mock API server on {@link #KUBERNETES_PORT}. */
    static Path kubeconfig() {
        return Path.of(System.getProperty("dockyard.server-output")).resolveSibling("kubeconfig-it.yaml");
    }

    static String kubeconfigText() {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: http://127.0.0.1:%d
                contexts:
                - name: mock
                  context:
                    cluster: mock
                    user: it
                    namespace: %s
                current-context: mock
                users:
                - name: it
                  user:
                    token: it-not-a-secret
                """.formatted(KUBERNETES_PORT, KUBERNETES_NAMESPACE);
    }

    /** The file the shared control plane reads remote node {@code node}'s key from. */
    static Path remoteKeyFile(String node) {
        return Path.of(System.getProperty("dockyard.server-output")).resolveSibling(node + "-key");
    }

    /**
     * Gives remote node {@code node} of the shared control plane {@code key} (mode 600, replaced
     * whole: never read half-written).
     */
    public static void writeRemoteKey(String node, String key) throws IOException {
        Path file = remoteKeyFile(node);
        Path written = Files.createTempFile(file.getParent(), node, ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(written, key);
        Files.move(written, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The local node's root of {@code instance}: each control plane's local runtimes apart. */
    static Path localRoot(String instance) {
        return Path.of(System.getProperty("dockyard.local-root")).resolveSibling(instance + "-local1");
    }

    /** The cli node's root of {@code instance}. */
    static Path cliRoot(String instance) {
        Path shared = Path.of(System.getProperty("dockyard.cli-runtimes"));
        return instance.equals(System.getProperty("dockyard.instance")) ? shared
                : shared.resolveSibling("cli-runtimes-" + instance);
    }

    /** What the control planes of these tests share: users, quotas, images, agents, the local and cli nodes. */
    static Map<String, String> common(String instance, int httpPort) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HTTP_PORT", String.valueOf(httpPort));
        // runtimes' service URLs: a port of their own (dockyard.proxy.port), 1000 above the API's
        env.put("DOCKYARD_PROXY_PORT", String.valueOf(httpPort + 1000));
        env.put("DOCKYARD_BOOTSTRAP_ADMIN_KEY", ADMIN_KEY);
        env.put("DOCKYARD_INSTANCE", instance);
        env.put("JVM_ARGS", TEST_JVM);
        env.put("DOCKYARD_WARM_UP_REHEARSAL", REHEARSAL);
        // the suites share the bootstrap admin; TenancyIT tests quotas on its own users
        env.put("DOCKYARD_QUOTA_MAX_RUNTIMES", "100");
        env.put("DOCKYARD_QUOTA_MAX_CPUS", "100");
        env.put("DOCKYARD_QUOTA_MAX_MEMORY_MB", "200000");
        env.put("DOCKYARD_FAULT_INJECTION", "true");
        // DisconnectedRuntimeIT: a runtime whose sandbox is gone is released after 30 s, not 300
        env.put("DOCKYARD_RECONCILER_DISCONNECTED_GRACE", "30");
        // WarmPoolIT: pools tended every second
        env.put("DOCKYARD_POOLS_TEND_INTERVAL", "1");
        // IdleLifecycleIT: idle timeouts and TTLs of a few seconds need a sweep every second
        env.put("DOCKYARD_LIFECYCLE_SWEEP_INTERVAL", "1");
        // RemoteNodeIT: a remote node's silence noticed within 2 s; HealthIT: an engine's
        env.put("DOCKYARD_NODES_HEALTH_INTERVAL", "2");
        // CredentialsIT's token endpoint: plain http on 127.0.0.1, allowed by an admin
        env.put("DOCKYARD_CREDENTIALS_ALLOWED_TOKEN_HOSTS", "127.0.0.1");
        // the local backend's node (LocalBackendIT, Local*ProtocolIT): host processes of the executor
        // bundle; only runtimes that name it go there
        env.put("DOCKYARD_NODE_LOCAL1_TYPE", "local");
        env.put("DOCKYARD_NODE_LOCAL1_PLACEMENT", "explicit");
        env.put("DOCKYARD_NODE_LOCAL1_ROOT", localRoot(instance).toString());
        env.put("DOCKYARD_NODE_LOCAL1_BUNDLE", System.getProperty("dockyard.local-bundle"));
        // the executor suites' CLI variants (Cli*IT): no sandbox, directories under target/; explicit only
        env.put("DOCKYARD_NODE_CLI1_TYPE", "cli");
        env.put("DOCKYARD_NODE_CLI1_ROOT", cliRoot(instance).toString());
        env.put("DOCKYARD_NODE_CLI1_I_UNDERSTAND_NO_ISOLATION", "true");
        // cli and local nodes are admins only; CliBackendIT's granted user may use cli1
        env.put("DOCKYARD_NODE_CLI1_ALLOWED_USERS", CLI_GRANTED_USER);
        // SandboxConfinementIT: node2 declares two GPUs (none exist: created, never run); its engine has
        // no runsc (its own daemon.json), local's has
        env.put("DOCKYARD_NODE_NODE2_DOCKER_HOST", DockerCli.NODE2);
        env.put("DOCKYARD_NODE_NODE2_GPUS", "2");
        env.put("DOCKYARD_SANDBOX_ALLOWED_NETWORKS", "dockyard-it-extra");
        // the tests' own runtime image repository: ImageBuilderIT removes what it built
        env.put("DOCKYARD_IMAGES_REPOSITORY", "dockyard/it-runtime");
        // images the tests build outside Dockyard that plain users run (ForeignImage, the base images of
        // ImageBuilderIT and PluginsThroughControlPlaneIT): allowed by the admin
        env.put("DOCKYARD_IMAGES_ALLOWED", "dockyard/it-foreign:*,dockyard/sandbox-base:*,"
                + "dockyard/it-base-nojava:*,dockyard/it-crashing-sandbox:*");
        // an agent with a strict policy for GuardedActionsIT
        env.put("DOCKYARD_AGENTS", "CodeActAgent,BrowsingAgent,GuardedAgent");
        env.put("DOCKYARD_AGENT_GUARDEDAGENT_SECURITY_CONFIRM", "MEDIUM");
        env.put("DOCKYARD_AGENT_GUARDEDAGENT_SECURITY_BLOCK", "HIGH");
        env.put("DOCKYARD_IMAGES_BUNDLE", System.getProperty("dockyard.bundle"));
        // EgressPolicyIT: the internal mode's one service, the test's own link-local server
        env.put("DOCKYARD_SANDBOX_NETWORK_INTERNAL_SERVICES", "169.254.77.2:18080");
        env.put("DOCKYARD_NODES", "local,node2,local1,cli1");
        return env;
    }

    /**
     * The shared control plane's: the common settings and the nodes of the suites that place runtimes
     * on them by name (each of those suites names its node in every request).
     */
    static Map<String, String> shared() {
        Map<String, String> env = common(System.getProperty("dockyard.instance"), BASE_PORT);
        env.put("DOCKYARD_PROXY_PORT", System.getProperty("dockyard.proxy-port"));
        env.put("DOCKYARD_NODES", env.get("DOCKYARD_NODES") + ",k8s,remote1,remote2," + PLAIN_ENGINE);
        env.put("DOCKYARD_NODE_K8S_TYPE", "kubernetes");
        env.put("DOCKYARD_NODE_K8S_PLACEMENT", "explicit");
        env.put("DOCKYARD_NODE_K8S_KUBECONFIG", kubeconfig().toString());
        env.put("DOCKYARD_NODE_K8S_CONTEXT", "mock");
        env.put("DOCKYARD_NODE_K8S_NAMESPACE", KUBERNETES_NAMESPACE);
        env.put("DOCKYARD_NODE_K8S_EXECUTOR_ACCESS", "pod-ip");
        env.put("DOCKYARD_NODE_K8S_START_TIMEOUT", "120");
        // the remote nodes' keys: files their suites write once their user exists on the other control
        // plane (a key file is read again when it changes); until then a placeholder the remote refuses
        for (String remote : new String[] {"remote1", "remote2"}) {
            String prefix = "DOCKYARD_NODE_" + remote.toUpperCase() + "_";
            env.put(prefix + "TYPE", "remote");
            env.put(prefix + "PLACEMENT", "explicit");
            env.put(prefix + "API_KEY_FILE", remoteKeyFile(remote).toString());
        }
        env.put("DOCKYARD_NODE_REMOTE1_URL", "http://127.0.0.1:" + REMOTE1_PORT);
        env.put("DOCKYARD_NODE_REMOTE1_DISCONNECT_AFTER", "5");
        // RemoteNodeIT restarts the control plane behind remote1, a Liberty boot that takes over a minute
        // beside other suites: its runtimes are released after 300 s, not the 30 s of the other nodes
        env.put("DOCKYARD_NODE_REMOTE1_DISCONNECTED_GRACE", "300");
        env.put("DOCKYARD_NODE_REMOTE2_URL", "http://127.0.0.1:" + REMOTE2_PORT);
        env.put("DOCKYARD_NODE_PLAIN_DOCKER_HOST", "unix:///var/run/dockyard-" + PLAIN_ENGINE + ".sock");
        env.put("DOCKYARD_NODE_PLAIN_PLACEMENT", "explicit");
        return env;
    }
}
