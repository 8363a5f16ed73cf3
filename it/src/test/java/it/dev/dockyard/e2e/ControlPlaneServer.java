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
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The shared control plane: one Liberty server for the whole run, started before the first suite
 * by {@link Lifecycle} (registered for every suite, META-INF/services) with {@link
 * ControlPlaneSettings#shared()}, and stopped when the run ends. Nothing restarts or kills it:
 * suites that must do that use the {@link DisposableControlPlane}, and nodes are part of its
 * settings, so that suites can run beside one another in any order.
 */
public final class ControlPlaneServer {

    private ControlPlaneServer() {
    }

    static Path output() {
        return Path.of(System.getProperty("dockyard.server-output"));
    }

    static long pid() throws IOException {
        return Long.parseLong(Files.readString(output().resolve(".pid/dockyard.pid")).strip());
    }

    /** Starts it with the shared settings and waits until its API answers. */
    static void start() throws Exception {
        Files.createDirectories(output());
        Files.writeString(ControlPlaneSettings.kubeconfig(), ControlPlaneSettings.kubeconfigText());
        for (String remote : new String[] {"remote1", "remote2"}) {
            ControlPlaneSettings.writeRemoteKey(remote, "no-user-there-yet");
        }
        server("start", ControlPlaneSettings.shared());
        awaitApi(System.getProperty("dockyard.url"), Duration.ofSeconds(300));
    }

    /** Stops it gracefully; one that will not stop is killed by its own pid. */
    static void stop() throws Exception {
        if (!server("stop", Map.of())) {
            ProcessHandle.of(pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static boolean server(String action, Map<String, String> settings) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", action,
                "dockyard").redirectErrorStream(true);
        builder.environment().put("WLP_OUTPUT_DIR", output().toString());
        builder.environment().putAll(settings);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        boolean done = process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0;
        if (!done) {
            System.out.println("server " + action + " failed: " + out);
        }
        return done;
    }

    /**
     * Waits until {@code url}'s API answers the admin ({@code GET /api/v1/nodes}): not
     * {@code /health/ready}, which stays DOWN while a node of a suite that is not running is away.
     */
    static void awaitApi(String url, Duration within) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
        HttpRequest nodes = HttpRequest.newBuilder(URI.create(url + "/api/v1/nodes"))
                .header("X-API-Key", ControlPlaneSettings.ADMIN_KEY).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(nodes, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError(url + " never answered within " + within);
    }

    /** The server as a resource of the run: stopped when JUnit closes its root store. */
    private static final class Running implements ExtensionContext.Store.CloseableResource {

        Running() throws Exception {
            long started = System.nanoTime();
            start();
            System.out.printf("the shared control plane answered %.1f s after its start%n",
                    (System.nanoTime() - started) / 1e9);
        }

        @Override
        public void close() throws Exception {
            stop();
        }
    }

    /** Before any suite: the shared control plane running (started once for the run, in any order). */
    public static final class Lifecycle implements BeforeAllCallback {

        private static final ExtensionContext.Namespace RUN = ExtensionContext.Namespace.create(ControlPlaneServer.class);

        @Override
        public void beforeAll(ExtensionContext context) {
            context.getRoot().getStore(RUN).getOrComputeIfAbsent(Running.class, type -> {
                try {
                    return new Running();
                } catch (Exception e) {
                    throw new IllegalStateException("the shared control plane did not start", e);
                }
            }, Running.class);
        }
    }
}
