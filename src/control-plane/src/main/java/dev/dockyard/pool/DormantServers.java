package dev.dockyard.pool;

import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Initialises a dormant server of a warm pool at claim, as OpenHands' agent server expects it
 * ({@code openhands/agent_server/init_router.py}): {@code POST /api/init} authenticated by
 * {@code X-Init-API-Key} (the key the member was booted with as {@code OH_SECRET_KEY}), carrying
 * the runtime's session key as the server's only {@code session_api_keys} entry and as its
 * {@code secret_key}, and the runtime's environment.
 *
 * <p>The init's {@code env} is set in the process's environment, but the server read its own
 * configuration ({@code OH_*}) when it booted, dormant. So the {@code OH_*} variables its client
 * sends at {@code /start} are carried in the init's own fields where the contract has one
 * (webhooks, CORS origins, paths, the web URL, the concurrency limit); a request with any other
 * {@code OH_*} variable cannot be served by a dormant server ({@link #canInitialise}) and boots cold.
 */
@ApplicationScoped
public class DormantServers {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern WEBHOOK = Pattern.compile("OH_WEBHOOKS_(\\d+)_([A-Z_]+)");
    private static final Pattern CORS = Pattern.compile("OH_ALLOW_CORS_ORIGINS_(\\d+)");
    /** {@code OH_*} variables with a field of their own in the init request, by name. */
    private static final Map<String, String> FIELDS = Map.of("OH_CONVERSATIONS_PATH", "conversations_path",
            "OH_BASH_EVENTS_DIR", "bash_events_dir", "OH_CONVERSATION_WORKTREE_ROOT", "conversation_worktree_root",
            "OH_WEB_URL", "web_url", "OH_MAX_CONCURRENT_RUNS", "max_concurrent_runs");
    /** The members of a webhook spec that are numbers; the others are strings ({@code HEADERS}: a JSON object). */
    private static final Set<String> NUMERIC = Set.of("event_buffer_size", "flush_delay", "num_retries",
            "retry_delay");
    /** Set by Dockyard itself, or replaced by the init. */
    private static final Set<String> HANDLED = Set.of("OH_SECRET_KEY", "OH_DEFERRED_INIT", "OH_VSCODE_BASE_PATH");

    /**
     * HTTP/1.1 only: the JDK's client otherwise offers an upgrade to h2c on a plain-http POST, and
     * uvicorn with httptools (OpenHands' agent server) then drops the request's body (422 "missing
     * body"), so the init would be refused because of the client.
     */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** A server that did not take its initialisation. */
    public static class InitFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public InitFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Whether every {@code OH_*} variable of {@code environment} can be delivered by the init. */
    public static boolean canInitialise(Map<String, String> environment, List<String> sessionKeyVariables) {
        return environment.keySet().stream().filter(n -> n.startsWith("OH_"))
                .allMatch(n -> sessionKeyVariables.contains(n) || HANDLED.contains(n) || FIELDS.containsKey(n)
                        || WEBHOOK.matcher(n).matches() || CORS.matcher(n).matches());
    }

    /** The body of {@code POST /api/init} for a runtime with this key and environment. */
    static JsonObject initRequest(String sessionKey, Map<String, String> environment, String webUrl,
                                  List<String> sessionKeyVariables) {
        JsonObjectBuilder env = Jsonp.createObjectBuilder();
        Map<Integer, JsonObjectBuilder> webhooks = new TreeMap<>();
        Map<Integer, String> cors = new TreeMap<>();
        JsonObjectBuilder body = Jsonp.createObjectBuilder()
                .add("session_api_keys", Jsonp.createArrayBuilder().add(sessionKey))
                .add("secret_key", sessionKey);
        boolean webUrlSet = false;
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            Matcher webhook = WEBHOOK.matcher(name);
            Matcher origin = CORS.matcher(name);
            if (webhook.matches()) {
                String member = webhook.group(2).toLowerCase();
                webhooks.computeIfAbsent(Integer.valueOf(webhook.group(1)), i -> Jsonp.createObjectBuilder())
                        .add(member, typed(member, value));
            } else if (origin.matches()) {
                cors.put(Integer.valueOf(origin.group(1)), value);
            } else if (FIELDS.containsKey(name)) {
                if (name.equals("OH_MAX_CONCURRENT_RUNS")) {
                    body.add(FIELDS.get(name), Integer.parseInt(value.strip()));
                } else {
                    body.add(FIELDS.get(name), value);
                    webUrlSet |= name.equals("OH_WEB_URL");
                }
            } else if (!sessionKeyVariables.contains(name) && !HANDLED.contains(name)) {
                env.add(name, value);
            }
        }
        if (!webhooks.isEmpty()) {
            JsonArrayBuilder list = Jsonp.createArrayBuilder();
            webhooks.values().forEach(list::add);
            body.add("webhooks", list);
        }
        if (!cors.isEmpty()) {
            JsonArrayBuilder list = Jsonp.createArrayBuilder();
            cors.values().forEach(list::add);
            body.add("allow_cors_origins", list);
        }
        if (webUrl != null && !webUrlSet) {
            body.add("web_url", webUrl);
        }
        return body.add("env", env).build();
    }

    private static JsonValue typed(String member, String value) {
        if (NUMERIC.contains(member)) {
            try {
                return Jsonp.createValue(Double.parseDouble(value.strip()));
            } catch (NumberFormatException e) {
                return Jsonp.createValue(value);
            }
        }
        if (member.equals("headers")) {
            try (var reader = Jsonp.createReader(new StringReader(value))) {
                return reader.readObject();
            } catch (RuntimeException e) {
                return Jsonp.createValue(value);
            }
        }
        return Jsonp.createValue(value);
    }

    public void initialize(URI server, String initKey, String sessionKey, Map<String, String> environment,
                           String webUrl, List<String> sessionKeyVariables) {
        JsonObject body = initRequest(sessionKey, environment, webUrl, sessionKeyVariables);
        HttpRequest request = HttpRequest.newBuilder(server.resolve("/api/init")).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("X-Init-API-Key", initKey)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
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
