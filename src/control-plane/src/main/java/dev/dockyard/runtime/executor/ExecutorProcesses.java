package dev.dockyard.runtime.executor;

import dev.dockyard.executor.envd.ConnectWire;
import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The processes of a sandbox, as its executor serves them: envd's {@code process.Process} service
 * (E2B's in-sandbox protocol, which Dockyard's executor speaks besides PROTOCOL.md), called over the
 * Connect protocol's JSON wire with the sandbox's own key. A started or attached process answers a
 * {@link Stream} of envelopes the caller reads as they come; the other calls answer one message.
 * HTTP/1.1 only: an {@code Upgrade: h2c} offer would make some servers drop a request's body.
 */
@ApplicationScoped
public class ExecutorProcesses {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** A call the executor refused: envd's Connect code ({@code not_found}, {@code invalid_argument}, ...) and message. */
    public static class CallFailedException extends RuntimeException {

        private final String code;

        public CallFailedException(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    /** An open stream of a process's events: read envelope by envelope, closed by the caller. */
    public static final class Stream implements AutoCloseable {

        private final InputStream body;

        Stream(InputStream body) {
            this.body = body;
        }

        /** The next envelope, or empty where the stream ended without an end-stream envelope. */
        public Optional<ConnectWire.Envelope> next() throws IOException {
            return ConnectWire.next(body);
        }

        /** Ends the stream; the process goes on (envd never ties a process to its client). */
        @Override
        public void close() {
            try {
                body.close();
            } catch (IOException e) {
                // nothing is read from it any more
            }
        }
    }

    /**
     * Opens {@code process.Process/Start} or {@code Connect}; {@code deadline} (Start only) is the
     * process's lifetime, which envd enforces by killing it; null for none.
     */
    public Stream open(URI executor, String sessionKey, String method, JsonObject request, Duration deadline) {
        // the timeout bounds the wait for the answer's head; the events then come as the process runs
        HttpRequest.Builder builder = HttpRequest.newBuilder(at(executor, method)).timeout(CALL_TIMEOUT)
                .header(ExecutorClient.SESSION_HEADER, sessionKey)
                .header("Content-Type", ConnectWire.STREAM_TYPE)
                .header("Connect-Protocol-Version", "1")
                .header("Keepalive-Ping-Interval", "30")
                .POST(HttpRequest.BodyPublishers.ofByteArray(ConnectWire.request(request)));
        if (deadline != null) {
            builder.header("Connect-Timeout-Ms", Long.toString(deadline.toMillis()));
        }
        HttpResponse<InputStream> answer = send(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (answer.statusCode() != 200) {
            String text = readQuietly(answer.body());
            throw failure(answer.statusCode(), text);
        }
        return new Stream(answer.body());
    }

    /** A unary call of {@code process.Process}: its answer message, or {@link CallFailedException}. */
    public JsonObject call(URI executor, String sessionKey, String method, JsonObject request) {
        HttpRequest http = HttpRequest.newBuilder(at(executor, method)).timeout(CALL_TIMEOUT)
                .header(ExecutorClient.SESSION_HEADER, sessionKey)
                .header("Content-Type", "application/json")
                .header("Connect-Protocol-Version", "1")
                .POST(HttpRequest.BodyPublishers.ofString(request.toString()))
                .build();
        HttpResponse<String> answer = send(http, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw failure(answer.statusCode(), answer.body());
        }
        return parse(answer.body()).orElseThrow(() -> new CallFailedException("internal",
                "The executor's answer is not a JSON object"));
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(request, handler);
        } catch (IOException e) {
            throw new ExecutorClient.ExecutorUnreachableException("Executor unreachable: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorClient.ExecutorUnreachableException("Interrupted while calling the executor", e);
        }
    }

    /** envd's error from an answer that is not a 200: its Connect code and message, else the status's. */
    static CallFailedException failure(int status, String body) {
        Optional<JsonObject> error = parse(body);
        String code = error.map(e -> e.getString("code", null)).orElse(null);
        String message = error.map(e -> e.getString("message", null)).orElse(null);
        if (code == null) {
            code = switch (status) {
                case 400 -> "invalid_argument";
                case 401, 403 -> "unauthenticated";
                case 404 -> "unimplemented";
                case 429, 502, 503, 504 -> "unavailable";
                default -> "unknown";
            };
        }
        return new CallFailedException(code, message == null ? "The executor answered " + status : message);
    }

    private static Optional<JsonObject> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try (JsonReader reader = Jsonp.createReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
            return Optional.of(reader.readObject());
        } catch (JsonException | IllegalStateException e) {
            return Optional.empty();
        }
    }

    private static String readQuietly(InputStream body) {
        try (body) {
            return new String(body.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static URI at(URI executor, String method) {
        String base = executor.toString();
        return URI.create((base.endsWith("/") ? base : base + "/") + "process.Process/" + method);
    }
}
