package it.dev.dockyard.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A control plane of these tests on this machine: the build's Liberty server with an output
 * directory (so an embedded Derby database), port and instance of its own, on the same Docker
 * engine; started, stopped and killed by its own pid. The shared one ({@link ControlPlaneServer}),
 * the disposable one and those a suite starts for itself (RemoteNodeIT's, PlacementIT's) are each one.
 */
public final class ControlPlane {

    /**
     * The lock of suites that boot control planes of their own for their whole class
     * (HighAvailabilityIT's two, PlacementIT's, ControlPlaneImageIT's container): a boot is ~20–60
     * CPU-s, and two of them beside each other on a 2-core machine, with the other suites running,
     * stretched one past minutes. Suites run two at a time; these take turns. (RemoteNodeIT's second
     * control plane is one boot and a restart, which remote1's 300 s disconnected grace leaves room
     * for: it runs beside anything.)
     */
    public static final String OWN_SERVERS = "control-planes-of-their-own";

    private static final String ADMIN_KEY = ControlPlaneSettings.ADMIN_KEY;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private final String instance;
    private final int port;
    private final Map<String, String> settings;
    private final Path output;
    private final boolean nodesComeAndGo;

    public ControlPlane(String instance, int port) {
        this(instance, port, Map.of());
    }

    /** One with {@code settings} (environment variables, i.e. MP Config) over its usual ones. */
    public ControlPlane(String instance, int port, Map<String, String> settings) {
        this(instance, port, settings, Path.of(System.getProperty("dockyard.server-output"))
                .resolveSibling("second-output-" + instance), false);
    }

    /**
     * One whose output directory (logs, database, pid) is {@code output}; {@code nodesComeAndGo}: it
     * has nodes of suites that are not always running (the shared one), so its start waits for its
     * API, not for {@code /health/ready}.
     */
    public ControlPlane(String instance, int port, Map<String, String> settings, Path output, boolean nodesComeAndGo) {
        this.instance = instance;
        this.port = port;
        this.settings = Map.copyOf(settings);
        this.output = output;
        this.nodesComeAndGo = nodesComeAndGo;
    }

    public String instance() {
        return instance;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public DockyardApi admin() {
        return new DockyardApi(url(), ADMIN_KEY);
    }

    public Path output() {
        return output;
    }

    Path log() {
        return output.resolve("dockyard/logs/messages.log");
    }

    public Optional<Long> pid() throws IOException {
        Path pid = output().resolve(".pid/dockyard.pid");
        return Files.exists(pid) ? Optional.of(Long.parseLong(Files.readString(pid).strip())) : Optional.empty();
    }

    /** A fresh one: its output directory (and database) of an earlier run removed first. */
    public void startFresh() throws Exception {
        new ProcessBuilder("rm", "-rf", output().toString()).start().waitFor(60, TimeUnit.SECONDS);
        // the server's own: a local node's sandbox user reads nothing of it (LocalBackendIT), as when
        // Liberty makes the directory itself
        Files.createDirectories(output(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                "rwx------")));
        start();
    }

    /** Starts it (again, with its database as it was) and waits until it is ready ({@link #await}). */
    public void start() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "start",
                "dockyard").redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("WLP_OUTPUT_DIR", output().toString());
        env.put("HTTP_PORT", String.valueOf(port));
        env.put("DOCKYARD_PROXY_PORT", String.valueOf(port + 1000)); // its services' listener
        env.put("DOCKYARD_BOOTSTRAP_ADMIN_KEY", ADMIN_KEY);
        env.put("DOCKYARD_INSTANCE", instance);
        env.put("JVM_ARGS", ControlPlaneSettings.TEST_JVM);
        env.put("DOCKYARD_WARM_UP_REHEARSAL", ControlPlaneSettings.REHEARSAL);
        env.put("DOCKYARD_NODES", "local");
        env.put("DOCKYARD_QUOTA_MAX_RUNTIMES", "100");
        env.put("DOCKYARD_QUOTA_MAX_CPUS", "100");
        env.put("DOCKYARD_QUOTA_MAX_MEMORY_MB", "200000");
        env.put("DOCKYARD_IMAGES_BUNDLE", System.getProperty("dockyard.bundle"));
        env.putAll(settings);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0, "server start: " + out);
        await(Duration.ofSeconds(300));
    }

    /**
     * Waits until it is ready ({@code /health/ready}), or for the shared one until its API answers
     * the admin ({@code GET /api/v1/nodes}): its readiness stays DOWN while a node of a suite that is
     * not running is away. A boot on a busy 2-core machine can take minutes.
     */
    private void await(Duration within) throws Exception {
        HttpRequest nodes = (nodesComeAndGo
                ? HttpRequest.newBuilder(URI.create(url() + "/api/v1/nodes")).header("X-API-Key", ADMIN_KEY)
                : HttpRequest.newBuilder(URI.create(url() + "/health/ready"))).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (HTTP.send(nodes, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError(instance + " did not answer within " + within);
    }

    /** SIGKILL: no shutdown hook, no transaction completes, nothing is cleaned up. */
    public void killNine() throws Exception {
        ProcessHandle server = ProcessHandle.of(pid().orElseThrow(() -> new AssertionError(instance + " has no pid")))
                .orElseThrow(() -> new AssertionError(instance + " is not running"));
        server.destroyForcibly();
        server.onExit().get(30, TimeUnit.SECONDS);
    }

    /** Stops it gracefully; one that will not stop is killed by its own pid. */
    public void stop() throws Exception {
        ProcessBuilder stop = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "stop",
                "dockyard").redirectErrorStream(true);
        stop.environment().put("WLP_OUTPUT_DIR", output().toString());
        Process process = stop.start();
        process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            Optional<Long> pid = pid();
            if (pid.isPresent()) {
                ProcessHandle.of(pid.get()).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }
}
