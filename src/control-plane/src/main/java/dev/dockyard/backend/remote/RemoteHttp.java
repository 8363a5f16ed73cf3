package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.jsonp.Jsonp;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP exchanges with one remote control plane: each request carries the node's API key
 * ({@code X-API-Key}) and goes over HTTP/1.1, redirects never followed. An exchange that gets no
 * answer is a {@link RemoteUnreachableException}; an answer whose status was not expected is a
 * {@link BackendException} naming the call, the status and the remote's problem detail, never a
 * key. Every exchange also keeps count of whether the remote answers ({@link #unansweredSince}),
 * which the node's disconnection is judged by.
 */
final class RemoteHttp {

    static final String API_KEY_HEADER = "X-API-Key";
    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";

    private final RemoteNodeConfig settings;
    private final Clock clock;
    private final HttpClient http;
    /** Since when no call got an answer (null: the last call got one). */
    private final AtomicReference<Instant> unansweredSince = new AtomicReference<>();

    RemoteHttp(RemoteNodeConfig settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** See {@link RemoteControlPlane#unansweredSince()}. */
    Optional<Instant> unansweredSince() {
        return Optional.ofNullable(unansweredSince.get());
    }

    /** Now, by this client's clock. */
    Instant now() {
        return clock.instant();
    }

    /** The remote answered something: it is reachable. */
    void answered() {
        unansweredSince.set(null);
    }

    /** A call got no answer: the remote is unreachable since then, unless it was already. */
    void unanswered() {
        unansweredSince.compareAndSet(null, clock.instant());
    }

    /** A request to {@code pathAndQuery} of the remote with its key, answered within {@code timeout}. */
    HttpRequest.Builder request(String pathAndQuery, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(settings.url() + pathAndQuery)).timeout(timeout)
                .header(API_KEY_HEADER, settings.apiKey());
    }

    /**
     * One call of the remote's JSON API: {@code body} (or none) to {@code path}, with an
     * {@code Idempotency-Key} when one is given; the answer when its status is one of
     * {@code expected}, else a {@link BackendException}.
     */
    HttpResponse<String> send(String method, String path, JsonObject body, String idempotencyKey, int... expected) {
        HttpRequest.Builder request = request(path, settings.callTimeout()).header("Accept", "application/json");
        if (idempotencyKey != null) {
            request.header(IDEMPOTENCY_HEADER, idempotencyKey);
        }
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        HttpResponse<String> answer = exchange(method, pathOnly(path), request.build(),
                HttpResponse.BodyHandlers.ofString());
        for (int status : expected) {
            if (answer.statusCode() == status) {
                return answer;
            }
        }
        throw refusal(method, pathOnly(path), answer.statusCode(), answer.body());
    }

    /**
     * Sends {@code request} and waits for its answer, whatever its status; no answer is a
     * {@link RemoteUnreachableException}.
     */
    <T> HttpResponse<T> exchange(String method, String path, HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            HttpResponse<T> answer = http.send(request, handler);
            answered();
            return answer;
        } catch (IOException e) {
            unanswered();
            throw new RemoteUnreachableException("remote node '" + settings.node() + "' (" + settings.url()
                    + ") did not answer " + method + " " + path + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while calling remote node '" + settings.node() + "'", e);
        }
    }

    /** Sends {@code request} without waiting: for a stream, whose handler counts the answer itself. */
    <T> CompletableFuture<HttpResponse<T>> exchangeAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return http.sendAsync(request, handler);
    }

    /** An answer of {@code status} to a call that expected another. */
    BackendException refusal(String method, String path, int status, String body) {
        return new BackendException("remote node '" + settings.node() + "' answered " + method + " " + path + " with "
                + status + detail(body));
    }

    private static String pathOnly(String path) {
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    /** The remote's problem detail, when its answer is one. */
    private static String detail(String body) {
        try (var reader = Jsonp.createReader(new StringReader(body))) {
            JsonValue detail = reader.readObject().get("detail");
            return detail instanceof JsonString s ? ": " + s.getString() : "";
        } catch (RuntimeException notJson) {
            return "";
        }
    }

    /** {@code value} as one segment or parameter of a URL. */
    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
