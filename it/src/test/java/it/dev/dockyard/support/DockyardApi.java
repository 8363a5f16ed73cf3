package it.dev.dockyard.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;

/** A thin client for the control plane under test: real HTTP on 127.0.0.1. */
public final class DockyardApi {

    public record Answer(int status, String contentType, String body, HttpResponse<String> raw) {
        public JsonObject json() {
            try (var reader = Json.createReader(new StringReader(body))) {
                return reader.readObject();
            }
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String key;

    public DockyardApi() {
        this(System.getProperty("dockyard.url", "http://127.0.0.1:19080"),
                System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret"));
    }

    public DockyardApi(String base, String key) {
        this.base = URI.create(base + "/api/v1/");
        this.key = key;
    }

    /** The API key this client sends. */
    public String key() {
        return key;
    }

    public DockyardApi withKey(String otherKey) {
        return new DockyardApi(base.toString().replace("/api/v1/", ""), otherKey);
    }

    /**
     * A user of its own for a suite ({@code role} user or admin, id {@code prefix-<random>}), made by
     * this (admin) client: what it lists and counts, no suite running beside it changes.
     */
    public DockyardApi newUser(String prefix, String role) {
        Answer user = post("users", Json.createObjectBuilder()
                .add("userId", prefix + "-" + UUID.randomUUID().toString().substring(0, 8)).add("role", role).build());
        if (user.status() != 201) {
            throw new AssertionError("user " + prefix + ": " + user.status() + " " + user.body());
        }
        return withKey(user.json().getString("apiKey"));
    }

    public Answer get(String path) {
        return send(request(path).GET());
    }

    public Answer delete(String path) {
        return send(request(path).DELETE());
    }

    public Answer postBytes(String path, String contentType, byte[] body) {
        return send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    public Answer put(String path, JsonStructure body) {
        return send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    public Answer post(String path, JsonStructure body) {
        return post(path, body.toString(), null);
    }

    public Answer post(String path, String body, String prefer) {
        HttpRequest.Builder builder = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (prefer != null) {
            builder.header("Prefer", prefer);
        }
        return send(builder);
    }

    /**
     * POST /runtimes failing on purpose at provisioning step {@code failAt} (X-Dockyard-Fail-At),
     * waiting up to {@code waitSeconds} (0: not at all).
     */
    public Answer provisionFailingAt(JsonObject body, String failAt, int waitSeconds) {
        HttpRequest.Builder builder = request("runtimes").header("Content-Type", "application/json")
                .header("X-Dockyard-Fail-At", failAt).POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (waitSeconds > 0) {
            builder.header("Prefer", "wait=" + waitSeconds);
        }
        return send(builder);
    }

    /** POST with an {@code Idempotency-Key} (POST /runtimes takes one). */
    public Answer postIdempotent(String path, JsonStructure body, String idempotencyKey) {
        return send(request(path).header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    /** POST /runtimes and wait (Prefer: wait) for READY or ERROR. */
    public Answer provision(JsonObject body, int waitSeconds) {
        return post("runtimes", body.toString(), "wait=" + waitSeconds);
    }

    /**
     * POST /runtimes/{id}/migrate with {@code body} (may be empty), waiting up to {@code waitSeconds}
     * (0: not at all); {@code failAt} is a provisioning step to fail on purpose, or null.
     */
    public Answer migrate(String runtimeId, String body, String failAt, int waitSeconds) {
        HttpRequest.Builder builder = request("runtimes/" + runtimeId + "/migrate")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (!body.isEmpty()) {
            builder.header("Content-Type", "application/json");
        }
        if (waitSeconds > 0) {
            builder.header("Prefer", "wait=" + waitSeconds);
        }
        if (failAt != null) {
            builder.header("X-Dockyard-Fail-At", failAt);
        }
        return send(builder);
    }

    public JsonObject act(String runtimeId, JsonObject action) {
        Answer answer = post("runtimes/" + runtimeId + "/actions", action);
        if (answer.status() != 200) {
            throw new AssertionError("action failed with " + answer.status() + ": " + answer.body());
        }
        return answer.json();
    }

    /**
     * What the runtime's event stream sends within {@code within} (history first, then live
     * events), as raw text; the stream is closed after that time at the latest.
     */
    public String events(String runtimeId, Duration within) {
        return stream("runtimes/" + runtimeId + "/events", within);
    }

    /** What the event stream at {@code path} sends within {@code within}, as raw text. */
    String stream(String path, Duration within) {
        HttpRequest request = request(path).header("Accept", "text/event-stream").GET().build();
        CompletableFuture<HttpResponse<InputStream>> pending = http.sendAsync(request,
                HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder text = new StringBuilder();
        long deadline = System.nanoTime() + within.toNanos();
        try (InputStream body = pending.get(within.toMillis(), TimeUnit.MILLISECONDS).body()) {
            byte[] chunk = new byte[8192];
            while (System.nanoTime() < deadline) {
                if (body.available() == 0) {
                    Thread.sleep(50);
                    continue;
                }
                int n = body.read(chunk);
                if (n < 0) {
                    break;
                }
                text.append(new String(chunk, 0, n, StandardCharsets.UTF_8));
            }
        } catch (IOException | ExecutionException | TimeoutException e) {
            throw new AssertionError("event stream failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return text.toString();
    }

    /** Follows the event stream at {@code path}: read in the background until closed. */
    public EventFeed follow(String path) {
        HttpRequest request = request(path).header("Accept", "text/event-stream").GET().build();
        try {
            HttpResponse<InputStream> answer = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                    .get(60, TimeUnit.SECONDS);
            if (answer.statusCode() != 200) {
                throw new AssertionError("event stream " + path + ": " + answer.statusCode());
            }
            return new EventFeed(answer.body());
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("event stream failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Waits until GET /nodes shows {@code node} healthy: a node of a suite's own server (the
     * Kubernetes mock, a remote control plane, an engine) is probed every 2 s once it runs.
     */
    public void awaitHealthyNode(String node, Duration within) {
        Awaitility.await().atMost(within).pollInterval(Duration.ofMillis(250)).until(() -> get("nodes").json()
                .getJsonArray("nodes").getValuesAs(JsonObject.class).stream()
                .anyMatch(n -> n.getString("name").equals(node) && n.getBoolean("healthy")));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(180));
        if (key != null) {
            builder.header("X-API-Key", key);
        }
        return builder;
    }

    private Answer send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.body(), response);
        } catch (IOException e) {
            throw new AssertionError("control plane unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    public static JsonObject run(String command) {
        return Json.createObjectBuilder().add("action", "run")
                .add("args", Json.createObjectBuilder().add("command", command)).build();
    }

    /**
     * A command that may stay silent for longer than the 10 s an ordinary one gets before it is
     * answered "still running" with what it printed so far (a search of the whole disk on a busy
     * machine): it is waited for up to {@code timeoutSeconds}.
     */
    public static JsonObject runBlocking(String command, int timeoutSeconds) {
        return Json.createObjectBuilder().add("action", "run")
                .add("args", Json.createObjectBuilder().add("command", command).add("blocking", true))
                .add("timeout", timeoutSeconds).build();
    }
}
