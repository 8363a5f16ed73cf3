package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * HTTP to one remote control plane, with its API key ({@code X-API-Key}). Each method is one call;
 * retrying is {@link RemoteCalls}' business. No answer is {@link RemoteUnreachableException}; an
 * answer that is an error is a {@link BackendException} naming the status and the remote's
 * problem detail. Neither the key nor a runtime's key is ever in a message.
 */
public class RemoteControlPlane {

    static final String API_KEY_HEADER = "X-API-Key";
    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
    /** The most runtimes a Dockyard list answers (newest first). */
    static final int LIST_LIMIT = 1000;
    /** Dockyard's statuses of a runtime that holds a sandbox. */
    static final List<String> LIVE_STATUSES = List.of("STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED",
            "READY", "PAUSED", "HIBERNATED", "ERROR_RUNTIME_DISCONNECTED");

    private final RemoteNodeConfig settings;
    private final HttpClient http;

    public RemoteControlPlane(RemoteNodeConfig settings) {
        this.settings = settings;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The remote's base URL (scheme://host:port[/path]). */
    public URI url() {
        return settings.url();
    }

    /** A cheap authenticated call: answers only when the remote is up and the key is good. */
    public void ping() {
        send("GET", "/runtime-api/registry_prefix", null, null, 200);
    }

    /**
     * Starts (or, for a session that has a live runtime there, finds) the runtime of {@code session}
     * running Dockyard's executor of {@code image}, whose service key is {@code serviceKey}; answers its id.
     */
    public String start(String session, String image, String serviceKey) {
        JsonObject body = Json.createObjectBuilder().add("image", image).add("session_id", session)
                .add("session_api_key", serviceKey).build();
        JsonObject started = json(send("POST", "/runtime-api/start", body, session, 200, 201));
        return started.getString("runtime_id");
    }

    /** The remote runtime of {@code session} (the live one, else its latest), or empty. */
    public Optional<String> session(String session) {
        HttpResponse<String> answer = send("GET", "/runtime-api/sessions/" + encode(session), null, null, 200, 404);
        if (answer.statusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(json(answer).getString("runtime_id"));
    }

    /** The runtime by its remote id, or empty when the remote has none (or it is not this key's user's). */
    public Optional<RemoteRuntime> runtime(String id) {
        HttpResponse<String> answer = send("GET", "/api/v1/runtimes/" + encode(id), null, null, 200, 404);
        return answer.statusCode() == 404 ? Optional.empty() : Optional.of(runtimeOf(json(answer)));
    }

    /**
     * Every live runtime of the key's user there, asked status by status: the remote's list holds
     * its newest {@value #LIST_LIMIT} of any status, so a user with a long history would push live
     * ones out of a single list. A status whose list is that long may be cut: the whole answer is
     * then refused rather than given incomplete.
     */
    public List<RemoteRuntime> liveRuntimes() {
        List<RemoteRuntime> runtimes = new ArrayList<>();
        for (String status : LIVE_STATUSES) {
            JsonObject list = json(send("GET", "/api/v1/runtimes?status=" + status, null, null, 200));
            if (list.getJsonArray("runtimes").size() >= LIST_LIMIT) {
                throw new BackendException("remote node '" + settings.node() + "' lists " + LIST_LIMIT + " or more "
                        + status + " runtimes: its list may be cut, so it is not taken as complete");
            }
            for (JsonValue item : list.getJsonArray("runtimes")) {
                runtimes.add(runtimeOf(item.asJsonObject()));
            }
        }
        return runtimes;
    }

    /** Freezes it there; already paused is fine. */
    public RemoteRuntime pause(String id) {
        return runtimeOf(json(send("POST", "/api/v1/runtimes/" + encode(id) + "/pause", null, null, 200)));
    }

    /** Thaws (or wakes) it there, answering once it is READY again; already READY is fine. */
    public RemoteRuntime resume(String id) {
        return runtimeOf(json(send("POST", "/api/v1/runtimes/" + encode(id) + "/resume", null, null, 200)));
    }

    /** Stops its sandbox there, keeping its files (hibernation: it must be paused first). */
    public RemoteRuntime hibernate(String id) {
        return runtimeOf(json(send("POST", "/api/v1/runtimes/" + encode(id) + "/hibernate", null, null, 200)));
    }

    /** Deletes it there (its sandbox and workspace); gone already is fine. */
    public void delete(String id) {
        send("DELETE", "/api/v1/runtimes/" + encode(id), null, null, 204, 404);
    }

    /** Whether the remote's engine has {@code image}, and whether it is a runtime image. */
    public Optional<Boolean> runtimeImage(String image) {
        JsonObject answer = json(send("GET", "/api/v1/images/exists?image=" + encode(image), null, null, 200));
        return answer.getBoolean("exists", false) ? Optional.of(answer.getBoolean("runtimeImage", false))
                : Optional.empty();
    }

    private HttpResponse<String> send(String method, String path, JsonObject body, String idempotencyKey,
                                      int... expected) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(settings.url() + path))
                .timeout(settings.callTimeout()).header(API_KEY_HEADER, settings.apiKey())
                .header("Accept", "application/json");
        if (idempotencyKey != null) {
            request.header(IDEMPOTENCY_HEADER, idempotencyKey);
        }
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        HttpResponse<String> answer;
        try {
            answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new RemoteUnreachableException("remote node '" + settings.node() + "' (" + settings.url()
                    + ") did not answer " + method + " " + pathOnly(path) + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while calling remote node '" + settings.node() + "'", e);
        }
        for (int status : expected) {
            if (answer.statusCode() == status) {
                return answer;
            }
        }
        throw new BackendException("remote node '" + settings.node() + "' answered " + method + " " + pathOnly(path)
                + " with " + answer.statusCode() + detail(answer.body()));
    }

    private static String pathOnly(String path) {
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    /** The remote's problem detail, when its answer is one. */
    private static String detail(String body) {
        try (var reader = Json.createReader(new StringReader(body))) {
            JsonValue detail = reader.readObject().get("detail");
            return detail instanceof JsonString s ? ": " + s.getString() : "";
        } catch (RuntimeException notJson) {
            return "";
        }
    }

    private JsonObject json(HttpResponse<String> answer) {
        try (var reader = Json.createReader(new StringReader(answer.body()))) {
            return reader.readObject();
        } catch (RuntimeException e) {
            throw new BackendException("remote node '" + settings.node() + "' answered something that is not a "
                    + "JSON object (is " + settings.url() + " a Dockyard control plane?)", e);
        }
    }

    static RemoteRuntime runtimeOf(JsonObject runtime) {
        String createdAt = runtime.getString("createdAt", null);
        return new RemoteRuntime(runtime.getString("id"), runtime.getString("conversationId", null),
                runtime.getString("status"), runtime.getString("statusMessage", null),
                createdAt == null ? Instant.EPOCH : Instant.parse(createdAt));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
