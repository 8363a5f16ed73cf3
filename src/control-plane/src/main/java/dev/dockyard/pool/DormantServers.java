package dev.dockyard.pool;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * Initialises a dormant server of a warm pool at claim, as OpenHands' agent server expects it
 * ({@code openhands/agent_server/init_router.py}): {@code POST /api/init} authenticated by
 * {@code X-Init-API-Key} (the key the member was booted with as {@code OH_SECRET_KEY}), carrying
 * the runtime's session key as the server's only {@code session_api_keys} entry, the same value
 * as its {@code secret_key}, and the runtime's environment ({@code env}, set before the server's
 * services start).
 */
@ApplicationScoped
public class DormantServers {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A server that did not take its initialisation. */
    public static class InitFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public InitFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public void initialize(URI server, String initKey, String sessionKey, Map<String, String> environment,
                           String webUrl) {
        JsonObjectBuilder env = Json.createObjectBuilder();
        environment.forEach(env::add);
        JsonObjectBuilder body = Json.createObjectBuilder()
                .add("session_api_keys", Json.createArrayBuilder().add(sessionKey))
                .add("secret_key", sessionKey)
                .add("env", env);
        if (webUrl != null) {
            body.add("web_url", webUrl);
        }
        HttpRequest request = HttpRequest.newBuilder(server.resolve("/api/init")).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("X-Init-API-Key", initKey)
                .POST(HttpRequest.BodyPublishers.ofString(body.build().toString())).build();
        HttpResponse<String> answer;
        try {
            answer = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new InitFailedException("the dormant server did not answer its init: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InitFailedException("interrupted while initialising the dormant server", e);
        }
        if (answer.statusCode() != 200) {
            // its answer could quote what it was sent: only the status is kept
            throw new InitFailedException("the dormant server refused its init with HTTP " + answer.statusCode(),
                    null);
        }
    }
}
