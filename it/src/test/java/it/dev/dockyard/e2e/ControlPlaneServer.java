package it.dev.dockyard.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The control-plane server the build started for these tests: its PID, a kill -9, a restart (with other settings). */
final class ControlPlaneServer {

    private ControlPlaneServer() {
    }

    static long pid() throws IOException {
        Path pidFile = Path.of(System.getProperty("dockyard.server-output"), ".pid", "dockyard.pid");
        return Long.parseLong(Files.readString(pidFile).strip());
    }

    /** SIGKILL: no shutdown hook, no transaction completes, nothing is cleaned up. */
    static void killNine() throws Exception {
        kill(ProcessHandle.of(pid()).orElseThrow(() -> new AssertionError("server not running")));
    }

    private static void kill(ProcessHandle server) {
        server.destroyForcibly();
        try {
            server.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("server " + server.pid() + " did not exit after SIGKILL", e);
        }
    }

    /** Starts the same server again, with the same database and settings, and waits until it answers. */
    static void start() throws Exception {
        start(Map.of());
    }

    /**
     * Stops the server gracefully (its shutdown runs), e.g. to start it again with other settings; a server
     * that will not stop is killed, so that the next start never finds the port taken.
     */
    static void stop() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "stop",
                "dockyard").redirectErrorStream(true);
        builder.environment().put("WLP_OUTPUT_DIR", System.getProperty("dockyard.server-output"));
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            System.out.println("server stop failed, killing it if it still runs: " + out);
            ProcessHandle.of(pid()).ifPresent(ControlPlaneServer::kill);
        }
    }

    /** What the server was last started with over the usual settings (the build's own start: none). */
    private static volatile Map<String, String> current = Map.of();

    /** The overrides the server runs with now, as the last {@link #start(Map)} gave them. */
    static Map<String, String> overrides() {
        return current;
    }

    /** Stops the server (gracefully) and starts it again with {@code overrides} over the usual settings. */
    static void restart(Map<String, String> overrides) throws Exception {
        stop();
        start(overrides);
    }

    /**
     * Starts the server with the usual settings plus {@code overrides} (environment variables, i.e. MP
     * Config: PlacementIT sets node capacities, KubernetesNodeIT adds a Kubernetes node), and waits until
     * it answers.
     */
    static void start(Map<String, String> overrides) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "start",
                "dockyard").redirectErrorStream(true);
        builder.environment().put("WLP_OUTPUT_DIR", System.getProperty("dockyard.server-output"));
        builder.environment().put("HTTP_PORT", System.getProperty("dockyard.http-port"));
        builder.environment().put("DOCKYARD_PROXY_PORT", System.getProperty("dockyard.proxy-port"));
        builder.environment().put("DOCKYARD_BOOTSTRAP_ADMIN_KEY", System.getProperty("dockyard.admin-key"));
        builder.environment().put("DOCKYARD_INSTANCE", System.getProperty("dockyard.instance"));
        builder.environment().put("DOCKYARD_QUOTA_MAX_RUNTIMES", "100");
        builder.environment().put("DOCKYARD_QUOTA_MAX_CPUS", "100");
        builder.environment().put("DOCKYARD_QUOTA_MAX_MEMORY_MB", "200000");
        builder.environment().put("DOCKYARD_FAULT_INJECTION", "true");
        builder.environment().put("DOCKYARD_RECONCILER_DISCONNECTED_GRACE", "30");
        builder.environment().put("DOCKYARD_POOLS_TEND_INTERVAL", "1");
        builder.environment().put("DOCKYARD_LIFECYCLE_SWEEP_INTERVAL", "1");
        builder.environment().put("DOCKYARD_CREDENTIALS_ALLOWED_TOKEN_HOSTS", "127.0.0.1");
        builder.environment().put("DOCKYARD_NODES", "local,node2,local1,cli1");
        builder.environment().put("DOCKYARD_NODE_NODE2_DOCKER_HOST", DockerCli.NODE2);
        // as it/pom.xml: the local backend's node, for runtimes that name it only
        builder.environment().put("DOCKYARD_NODE_LOCAL1_TYPE", "local");
        builder.environment().put("DOCKYARD_NODE_LOCAL1_PLACEMENT", "explicit");
        builder.environment().put("DOCKYARD_NODE_LOCAL1_ROOT", System.getProperty("dockyard.local-root"));
        builder.environment().put("DOCKYARD_NODE_LOCAL1_BUNDLE", System.getProperty("dockyard.local-bundle"));
        // as it/pom.xml: the CLI variants' node (explicit placement only)
        builder.environment().put("DOCKYARD_NODE_CLI1_TYPE", "cli");
        builder.environment().put("DOCKYARD_NODE_CLI1_ROOT", System.getProperty("dockyard.cli-runtimes"));
        builder.environment().put("DOCKYARD_NODE_CLI1_I_UNDERSTAND_NO_ISOLATION", "true");
        // as it/pom.xml: cli and local nodes are admins only; CliBackendIT's granted user may use cli1
        builder.environment().put("DOCKYARD_NODE_CLI1_ALLOWED_USERS", CliBackendIT.GRANTED_USER);
        // as it/pom.xml: SandboxConfinementIT's GPU node and allowed network
        builder.environment().put("DOCKYARD_NODE_NODE2_GPUS", "2");
        builder.environment().put("DOCKYARD_SANDBOX_ALLOWED_NETWORKS", "dockyard-it-extra");
        builder.environment().put("DOCKYARD_IMAGES_REPOSITORY", "dockyard/it-runtime");
        // as it/pom.xml: the tests' own images that plain users run
        builder.environment().put("DOCKYARD_IMAGES_ALLOWED", "dockyard/it-foreign:*,dockyard/sandbox-base:*,dockyard/it-base-nojava:*,dockyard/it-crashing-sandbox:*");
        builder.environment().put("DOCKYARD_AGENTS", "CodeActAgent,BrowsingAgent,GuardedAgent");
        builder.environment().put("DOCKYARD_AGENT_GUARDEDAGENT_SECURITY_CONFIRM", "MEDIUM");
        builder.environment().put("DOCKYARD_AGENT_GUARDEDAGENT_SECURITY_BLOCK", "HIGH");
        builder.environment().put("DOCKYARD_IMAGES_BUNDLE", System.getProperty("dockyard.bundle"));
        // EgressPolicyIT: the internal mode's one service (as it/pom.xml starts the server)
        builder.environment().put("DOCKYARD_SANDBOX_NETWORK_INTERNAL_SERVICES", "169.254.77.2:18080");
        builder.environment().putAll(overrides);
        current = Map.copyOf(overrides);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError("server did not start again: " + out);
        }
        HttpClient http = HttpClient.newHttpClient();
        URI health = URI.create(System.getProperty("dockyard.url") + "/health/ready");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError("server never became ready again");
    }
}
