package dev.dockyard.executor.envd;

import dev.dockyard.executor.ActionExecutor;
import dev.dockyard.executor.ExecutorRequests;
import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.executor.http.ProtocolHttpServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real executor (its shell, its envd) served by a real {@link ProtocolHttpServer} on 127.0.0.1,
 * for the envd tests: {@code home} is its HOME, where relative paths start.
 */
final class EnvdServer implements AutoCloseable {

    static final String KEY = "envd-test-key";

    final Path home;
    final ActionExecutor executor;
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "envd-test-http");
        thread.setDaemon(true);
        return thread;
    });
    private final ProtocolHttpServer server;

    EnvdServer(Path dir) throws IOException {
        home = Files.createDirectories(dir.resolve("home"));
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        byte[] key = KEY.getBytes(StandardCharsets.UTF_8);
        ExecutorSettings settings = new ExecutorSettings(key, workspace, Duration.ofSeconds(30), Duration.ofSeconds(10),
                "/bin/bash", false, List.of());
        executor = new ActionExecutor(settings, Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", home.toString()),
                Files.createDirectories(dir.resolve("run")), null);
        ExecutorRequests requests = new ExecutorRequests(new ExecutorRequests.Host() {
            @Override
            public ActionExecutor executor() {
                return executor;
            }

            @Override
            public String failure() {
                return null;
            }

            @Override
            public byte[] sessionKey() {
                return key;
            }
        });
        server = ProtocolHttpServer.open(requests, threads);
    }

    URI uri() {
        return server.uri();
    }

    ConnectClient client() {
        return new ConnectClient(uri(), KEY);
    }

    @Override
    public void close() {
        server.close();
        executor.close();
        threads.shutdownNow();
    }
}
