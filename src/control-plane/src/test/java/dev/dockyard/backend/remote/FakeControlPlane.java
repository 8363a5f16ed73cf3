package dev.dockyard.backend.remote;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Another control plane as far as a remote node's client can tell: an HTTP server on 127.0.0.1
 * whose routes ("METHOD /raw/path") a test gives; anything else is Dockyard's 404. Sandbox
 * {@code dockyard-rt-a} of instance {@code cp-a} is its runtime {@code rt-remote1}. Records every
 * request ("METHOD /path?query key=<the node's key?> body").
 */
final class FakeControlPlane implements AutoCloseable {

    /** One route's answer, written to the exchange (a stream writes as long as it likes). */
    interface Route {
        void answer(HttpExchange exchange, byte[] body) throws IOException;
    }

    final List<String> seen = new CopyOnWriteArrayList<>();
    final Map<String, Route> routes = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final HttpServer server;

    FakeControlPlane() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        routes.put("GET /runtime-api/sessions/cp-a%3Adockyard-rt-a",
                (exchange, body) -> json(exchange, 200, "{\"runtime_id\":\"rt-remote1\"}"));
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String query = exchange.getRequestURI().getRawQuery();
            String route = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
            seen.add(route + (query == null ? "" : "?" + query) + " key="
                    + RemoteBackendTest.API_KEY.equals(exchange.getRequestHeaders().getFirst("X-API-Key")));
            try {
                Route own = routes.get(route);
                if (own == null) {
                    json(exchange, 404, "{\"detail\":\"no such thing\"}");
                } else {
                    own.answer(exchange, body);
                }
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    static void json(HttpExchange exchange, int status, String answer) throws IOException {
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** A runtime as {@code /api/v1} shows it. */
    static String runtime(String status) {
        return RemoteBackendTest.runtime("rt-remote1", "cp-a:dockyard-rt-a", status);
    }

    /** The requests seen whose line starts with {@code start}. */
    long count(String start) {
        return seen.stream().filter(s -> s.startsWith(start)).count();
    }

    RemoteBackend backend() {
        RemoteNodeConfig settings = new RemoteNodeConfig("remote1",
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), RemoteKey.given(RemoteBackendTest.API_KEY),
                Duration.ofSeconds(5), Duration.ofSeconds(5), "cp-a");
        return new RemoteBackend(settings, new RemoteControlPlane(settings), new RemoteCalls(), 8000, 1000);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
