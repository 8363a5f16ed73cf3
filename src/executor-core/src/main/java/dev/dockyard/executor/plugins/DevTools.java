package dev.dockyard.executor.plugins;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** A minimal Chrome DevTools Protocol client: commands over one page's WebSocket, answers by id. */
final class DevTools implements WebSocket.Listener, AutoCloseable {

    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
    private final StringBuilder partial = new StringBuilder();
    private WebSocket socket;

    static DevTools connect(URI page) throws Exception {
        DevTools tools = new DevTools();
        tools.socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                .buildAsync(page, tools).get(15, TimeUnit.SECONDS);
        return tools;
    }

    /** Sends a command; its result, or an exception carrying the protocol's error. */
    JsonObject call(String method, JsonObject params, Duration timeout) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonObject> answer = new CompletableFuture<>();
        pending.put(id, answer);
        String message = Jsonp.createObjectBuilder().add("id", id).add("method", method).add("params", params).build()
                .toString();
        synchronized (this) {
            socket.sendText(message, true).get(10, TimeUnit.SECONDS);
        }
        try {
            JsonObject reply = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (reply.containsKey("error")) {
                throw new IllegalStateException(method + ": " + reply.getJsonObject("error").getString("message", "error"));
            }
            return reply.getJsonObject("result");
        } catch (TimeoutException e) {
            throw new TimeoutException(method + " did not answer within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new IllegalStateException(method + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
            pending.remove(id);
        }
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            try (var reader = Jsonp.createReader(new StringReader(text))) {
                JsonObject message = reader.readObject();
                if (message.containsKey("id")) {
                    CompletableFuture<JsonObject> waiting = pending.get(message.getInt("id"));
                    if (waiting != null) {
                        waiting.complete(message);
                    }
                }
            } catch (RuntimeException ignored) {
                // events and anything unreadable: not waited for
            }
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        pending.values().forEach(f -> f.completeExceptionally(new IllegalStateException("the browser closed: " + reason)));
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        pending.values().forEach(f -> f.completeExceptionally(error));
    }

    @Override
    public void close() {
        if (socket != null) {
            socket.abort();
        }
    }
}
