package it.dev.dockyard.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A client of Dockyard's OpenHands-compatible Remote Runtime API at {@code {dockyard.url}/runtime-api}, sending
 * what OpenHands' clients send: header {@code X-API-Key} (a Dockyard user's key) on every call, JSON bodies.
 * Answers are {@link DockyardApi.Answer}s, so a test can look at the status, the body and the headers.
 */
public final class RuntimeApi {

    /** The control plane's base URL; runtime urls are {@code {BASE_URL}/{runtime_id}}. */
    public static final String BASE_URL = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    /** Where runtimes' service URLs are: the same host, the services' own port (dockyard.proxy.port). */
    public static final String SERVICES_URL = BASE_URL.replaceFirst(":[0-9]+$", ":" + System.getProperty("dockyard.proxy-port",
            "19081"));
    /** How long a runtime may take to start, resume or stop before a test gives up. */
    public static final Duration LIMIT = Duration.ofSeconds(120);
    /** Statuses and pod statuses the contract allows (lower case, as OpenHands compares them). */
    static final Set<String> STATUSES = Set.of("starting", "running", "paused", "stopped", "error");
    static final Set<String> POD_STATUSES = Set.of("pending", "running", "ready", "not found", "failed", "unknown",
            "crashloopbackoff");

    private static final DockyardApi ADMIN = new DockyardApi();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /** A Dockyard user made for one test: its id, its API key, and clients of both APIs with that key. */
    public record User(String userId, String apiKey, RuntimeApi runtimes, DockyardApi dockyard) {
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String key;

    /** A client sending {@code key} as X-API-Key, or no such header when {@code key} is null. */
    public RuntimeApi(String key) {
        this.key = key;
    }

    RuntimeApi withKey(String otherKey) {
        return new RuntimeApi(otherKey);
    }

    /** A new Dockyard user (created by the admin with POST /api/v1/users), with its own key. */
    public static User newUser(String prefix) {
        String userId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer created = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", "user").build());
        assertEquals(201, created.status(), created.body());
        String apiKey = created.json().getString("apiKey");
        return new User(userId, apiKey, new RuntimeApi(apiKey), ADMIN.withKey(apiKey));
    }

    /** Sets a user's maximum number of live runtimes, as TenancyIT does (PUT /api/v1/users/{id}/quota). */
    public static void setMaxRuntimes(String userId, int maxRuntimes) {
        DockyardApi.Answer set = ADMIN.put("users/" + userId + "/quota", Json.createObjectBuilder()
                .add("maxRuntimes", maxRuntimes).build());
        assertEquals(200, set.status(), set.body());
    }

    /** A session id as the app server makes them ({@code base62.encodebytes(os.urandom(16))}, ~22 characters). */
    public static String appServerSessionId() {
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < 22; i++) {
            id.append(BASE62.charAt(RANDOM.nextInt(BASE62.length())));
        }
        return id.toString();
    }

    // ------------------------------------------------------------------ the endpoints

    public DockyardApi.Answer start(JsonObject body) {
        return post("/start", body);
    }

    public DockyardApi.Answer session(String sessionId) {
        return get("/sessions/" + encode(sessionId));
    }

    /** GET /sessions/batch with the ids as a repeated query parameter, as the app server sends them. */
    public DockyardApi.Answer batch(String... sessionIds) {
        return get("/sessions/batch?" + Arrays.stream(sessionIds).map(id -> "ids=" + encode(id))
                .collect(Collectors.joining("&")));
    }

    public DockyardApi.Answer list() {
        return get("/list");
    }

    public DockyardApi.Answer runtime(String runtimeId) {
        return get("/runtime/" + encode(runtimeId));
    }

    public DockyardApi.Answer pause(String runtimeId) {
        return post("/pause", Json.createObjectBuilder().add("runtime_id", runtimeId).build());
    }

    public DockyardApi.Answer resume(String runtimeId) {
        return post("/resume", Json.createObjectBuilder().add("runtime_id", runtimeId).build());
    }

    public DockyardApi.Answer stop(String runtimeId) {
        return post("/stop", Json.createObjectBuilder().add("runtime_id", runtimeId).build());
    }

    public DockyardApi.Answer get(String pathAndQuery) {
        return send(request(pathAndQuery).GET());
    }

    public DockyardApi.Answer post(String path, JsonStructure body) {
        return post(path, body.toString());
    }

    /** POST a multipart/form-data body built by the caller. */
    public DockyardApi.Answer postMultipart(String path, String contentType, byte[] body) {
        return send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    /** POST with a raw body (which need not be valid JSON), as application/json. */
    public DockyardApi.Answer post(String path, String body) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    // ------------------------------------------------------------------ conveniences with assertions

    /** POST /start, which must answer 200 with a runtime object; that object. */
    public JsonObject started(JsonObject body) {
        DockyardApi.Answer answer = start(body);
        assertEquals(200, answer.status(), answer.body());
        JsonObject runtime = answer.json();
        assertRuntimeObject(runtime);
        return runtime;
    }

    /** The runtime object GET /sessions/{id} answers (which must be 200). */
    public JsonObject sessionObject(String sessionId) {
        DockyardApi.Answer answer = session(sessionId);
        assertEquals(200, answer.status(), answer.body());
        JsonObject runtime = answer.json();
        assertRuntimeObject(runtime);
        return runtime;
    }

    /** GET /list's {@code runtimes}, after checking its shape ({"runtimes": [...], "total": n}). */
    public List<JsonObject> listed() {
        DockyardApi.Answer answer = list();
        assertEquals(200, answer.status(), answer.body());
        JsonObject body = answer.json();
        List<JsonObject> runtimes = body.getJsonArray("runtimes").getValuesAs(JsonObject.class);
        assertEquals(runtimes.size(), body.getInt("total"), "total counts the runtimes listed: " + answer.body());
        runtimes.forEach(RuntimeApi::assertRuntimeObject);
        return runtimes;
    }

    /**
     * Polls GET /sessions/{id} every {@code interval}, like OpenHands' clients do, until {@code status} (and, when
     * not null, {@code podStatus}) is reached, at most {@link #LIMIT}. Fails at once on {@code error}/{@code failed},
     * and on a status outside the contract's vocabulary. The list of (status, pod_status) pairs seen goes into
     * {@code seen} when it is not null.
     */
    public JsonObject awaitSession(String sessionId, String status, String podStatus, Duration interval,
            List<String> seen) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        List<String> observed = seen != null ? seen : new ArrayList<>();
        while (true) {
            JsonObject runtime = sessionObject(sessionId);
            String pair = runtime.getString("status") + "/" + runtime.getString("pod_status");
            if (observed.isEmpty() || !observed.get(observed.size() - 1).equals(pair)) {
                observed.add(pair);
            }
            if (runtime.getString("status").equals("error") || runtime.getString("pod_status").equals("failed")) {
                throw new AssertionError("runtime of session " + sessionId + " failed: " + runtime + "; seen "
                        + observed);
            }
            if (runtime.getString("status").equals(status)
                    && (podStatus == null || runtime.getString("pod_status").equals(podStatus))) {
                return runtime;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("session " + sessionId + " never reached " + status + "/" + podStatus
                        + " within " + LIMIT + "; seen " + observed + "; last " + runtime);
            }
            sleep(interval);
        }
    }

    /** Polls until the session's runtime is running with pod_status ready (every 500 ms, bounded). */
    public JsonObject awaitRunning(String sessionId) {
        return awaitSession(sessionId, "running", "ready", Duration.ofMillis(500), null);
    }

    /**
     * Best-effort clean-up of a runtime a test started: POST /stop with the owner's key, then DELETE it through
     * Dockyard's own API, also with the owner's key (so that nothing is left even if /stop misbehaves).
     */
    public static void cleanUp(User owner, String runtimeId) {
        if (runtimeId == null) {
            return;
        }
        try {
            owner.runtimes().stop(runtimeId);
        } catch (AssertionError ignored) {
            // the control plane is gone: the delete below says so too
        }
        try {
            owner.dockyard().delete("runtimes/" + runtimeId);
        } catch (AssertionError ignored) {
            // nothing more to do
        }
    }

    // ------------------------------------------------------------------ the runtime object

    /**
     * What every OpenHands client indexes in a runtime object (notes section 3, "Return one shape from all of these
     * endpoints"): runtime_id, session_id, url = {services' origin}/{runtime_id} without a trailing slash (never on
     * the API's origin), a string
     * session_api_key, lower-case status and pod_status strings, restart_count, restart_reasons, work_hosts
     * {"{url}/work-1": 12000, "{url}/work-2": 12001}, image.
     */
    public static void assertRuntimeObject(JsonObject runtime) {
        String text = runtime.toString();
        String runtimeId = runtime.getString("runtime_id");
        assertFalse(runtimeId.isBlank(), text);
        assertFalse(runtime.getString("session_id").isBlank(), text);
        String url = runtime.getString("url");
        assertEquals(SERVICES_URL + "/" + runtimeId, url, "path mode on the services' port, no trailing slash: " + text);
        assertFalse(runtime.getString("session_api_key").isBlank(), text);
        assertTrue(STATUSES.contains(runtime.getString("status")), "status: " + text);
        assertTrue(POD_STATUSES.contains(runtime.getString("pod_status")), "pod_status: " + text);
        assertTrue(runtime.get("restart_count") instanceof JsonNumber, "restart_count: " + text);
        assertTrue(runtime.get("restart_reasons") instanceof JsonArray, "restart_reasons: " + text);
        assertEquals(Map.of(url + "/work-1", 12000, url + "/work-2", 12001), runtime.getJsonObject("work_hosts")
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                        e -> ((JsonNumber) e.getValue()).intValue())), "work_hosts: " + text);
        assertTrue(runtime.get("image") instanceof JsonString, "image: " + text);
    }

    /** A JSON array answer (GET /sessions/batch answers a bare array). */
    public static JsonArray array(String body) {
        try (var reader = Json.createReader(new StringReader(body))) {
            JsonValue value = reader.readValue();
            assertEquals(JsonValue.ValueType.ARRAY, value.getValueType(), "a bare JSON array: " + body);
            return value.asJsonArray();
        }
    }

    /** An error answer: JSON (problem+json) with a non-blank {@code detail}; that detail. */
    public static String detail(DockyardApi.Answer answer) {
        assertTrue(answer.contentType().contains("json"), answer.status() + " " + answer.contentType() + ": "
                + answer.body());
        String detail = answer.json().getString("detail", "");
        assertFalse(detail.isBlank(), "an error with a detail: " + answer.body());
        return detail;
    }

    // ------------------------------------------------------------------ plumbing

    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(BASE_URL + "/runtime-api" + pathAndQuery))
                .timeout(Duration.ofSeconds(60));
        if (key != null) {
            builder.header("X-API-Key", key);
        }
        return builder;
    }

    private DockyardApi.Answer send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            return new DockyardApi.Answer(response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(""), response.body(), response);
        } catch (IOException e) {
            throw new AssertionError("control plane unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
