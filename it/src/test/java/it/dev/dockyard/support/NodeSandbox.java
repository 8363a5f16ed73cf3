package it.dev.dockyard.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;

/**
 * A runtime the control plane of the it build provisions on a named backend node, reached as
 * OpenHands reaches one: through {@code POST /runtime-api/start} with Dockyard's {@code node}
 * extension, then the runtime's {@code url} (the control plane's proxy to its executor) with its
 * {@code session_api_key}. The executor protocol suites run on it unchanged, so every backend is
 * held to the same assertions as a container started by hand.
 */
public final class NodeSandbox {

    static final String BASE_URL = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final Duration START_LIMIT = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private NodeSandbox() {
    }

    /**
     * The it build's nodes of this host (cli1, {@link LocalNode#NAME}): admins only unless
     * allowed-users grants a user, so the suites' users there are admins.
     */
    private static final Set<String> HOST_NODES = Set.of("cli1", LocalNode.NAME);

    /** A new user's runtime of the sandbox image on {@code node}, ready; closing it stops and deletes it. */
    public static Sandbox start(String node) {
        return start(node, Sandbox.IMAGE);
    }

    public static Sandbox start(String node, String image) {
        String userId = "suite-" + node + "-" + UUID.randomUUID().toString().substring(0, 8);
        JsonObject user = json(send("POST", "/api/v1/users", ADMIN_KEY,
                Json.createObjectBuilder().add("userId", userId).add("role", HOST_NODES.contains(node) ? "admin" : "user")
                        .build(), 201));
        String apiKey = user.getString("apiKey");
        String session = "s" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        JsonObject started = json(send("POST", "/runtime-api/start", apiKey, Json.createObjectBuilder()
                .add("image", image).add("session_id", session).add("node", node).build(), 200, 201));
        String runtimeId = started.getString("runtime_id");
        AutoCloseable remover = () -> {
            send("POST", "/runtime-api/stop", apiKey, Json.createObjectBuilder().add("runtime_id", runtimeId).build(),
                    200, 404);
            send("DELETE", "/api/v1/runtimes/" + runtimeId, apiKey, null, 200, 202, 204, 404);
        };
        JsonObject runtime = started;
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (!"ready".equals(runtime.getString("pod_status", ""))) {
            if ("error".equals(runtime.getString("status", "")) || System.nanoTime() > deadline) {
                close(remover);
                throw new AssertionError("runtime on node " + node + " never became ready: " + runtime);
            }
            Sandbox.sleep(200);
            runtime = json(send("GET", "/runtime-api/sessions/" + session, apiKey, null, 200));
        }
        try {
            return Sandbox.of(runtimeId, runtime.getString("session_api_key"),
                    URI.create(runtime.getString("url") + "/"), null, remover);
        } catch (RuntimeException | AssertionError e) {
            close(remover);
            throw e;
        }
    }

    private static void close(AutoCloseable remover) {
        try {
            remover.close();
        } catch (Exception | AssertionError ignored) {
            // best effort: the failure being reported matters more
        }
    }

    private static String send(String method, String path, String apiKey, JsonObject body, int... expected) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(BASE_URL + path))
                .timeout(Duration.ofSeconds(60)).header("X-API-Key", apiKey);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        try {
            HttpResponse<String> answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            for (int status : expected) {
                if (answer.statusCode() == status) {
                    return answer.body();
                }
            }
            throw new AssertionError(method + " " + path + " answered " + answer.statusCode() + ": " + answer.body());
        } catch (IOException e) {
            throw new AssertionError(method + " " + path + ": control plane unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
