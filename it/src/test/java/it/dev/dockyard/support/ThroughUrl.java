package it.dev.dockyard.support;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Requests to a runtime's {@code url} (and its {@code /work-1}, {@code /work-2}, {@code /vscode} routes): the
 * control plane's proxy to the sandbox's ports, on 127.0.0.1. The session key goes in {@code X-Session-API-Key},
 * as every OpenHands client sends it; a null key sends no such header.
 */
public final class ThroughUrl {

    static final String SESSION_KEY_HEADER = "X-Session-API-Key";

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    /** A body streamed to its end: how many bytes, and their SHA-256 (hex). */
    public record Streamed(int status, long length, String sha256) {
    }

    private ThroughUrl() {
    }

    static HttpRequest.Builder request(String target, String sessionKey) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(target)).timeout(Duration.ofSeconds(60));
        if (sessionKey != null) {
            builder.header(SESSION_KEY_HEADER, sessionKey);
        }
        return builder;
    }

    public static HttpResponse<String> get(String target, String sessionKey) {
        return send(request(target, sessionKey).GET());
    }

    /** GET with extra headers (e.g. a Cookie, or X-API-Key as the legacy runtime sends along). */
    public static HttpResponse<String> get(String target, String sessionKey, Map<String, String> headers) {
        HttpRequest.Builder builder = request(target, sessionKey).GET();
        headers.forEach(builder::header);
        return send(builder);
    }

    public static HttpResponse<String> post(String target, String sessionKey, JsonObject body) {
        return send(request(target, sessionKey).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    static HttpResponse<String> send(HttpRequest.Builder builder) {
        try {
            return HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("proxy unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** GET, reading the body as a stream into a digest (never holding it whole). */
    public static Streamed stream(String target, String sessionKey) {
        try {
            HttpResponse<InputStream> response = HTTP.send(request(target, sessionKey).timeout(Duration.ofSeconds(90))
                    .GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            long length = 0;
            try (InputStream body = response.body()) {
                byte[] buffer = new byte[64 * 1024];
                for (int n = body.read(buffer); n >= 0; n = body.read(buffer)) {
                    digest.update(buffer, 0, n);
                    length += n;
                }
            }
            return new Streamed(response.statusCode(), length, HexFormat.of().formatHex(digest.digest()));
        } catch (IOException e) {
            throw new AssertionError("proxy unreachable or body cut: " + e, e);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The cookies a response sets, as one Cookie request header value ("a=1; b=2"), or "" when none. */
    public static String cookies(HttpResponse<?> response) {
        List<String> setCookies = response.headers().allValues("Set-Cookie");
        return setCookies.stream().map(c -> c.split(";", 2)[0].strip()).collect(Collectors.joining("; "));
    }

    /** {@code http://host:port/path} as {@code ws://host:port/path}. */
    public static String webSocketUrl(String httpUrl) {
        return httpUrl.replaceFirst("^http", "ws");
    }

    /** A WebSocket client: whole text messages received go into a queue. */
    public static final class Socket implements WebSocket.Listener {

        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        WebSocket socket;

        /** Opens a WebSocket to {@code target} with the session key header (none when null); fails if refused. */
        public static Socket open(String target, String sessionKey) throws InterruptedException, ExecutionException,
                TimeoutException {
            Socket listener = new Socket();
            WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder()
                    .connectTimeout(Duration.ofSeconds(10));
            if (sessionKey != null) {
                builder.header(SESSION_KEY_HEADER, sessionKey);
            }
            listener.socket = builder.buildAsync(URI.create(target), listener).get(30, TimeUnit.SECONDS);
            return listener;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                received.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
        }

        /** The next whole text message, waiting at most 20 s; fails when none comes. */
        public String next() throws InterruptedException {
            String message = received.poll(20, TimeUnit.SECONDS);
            if (message == null) {
                throw new AssertionError("no WebSocket message within 20 s");
            }
            return message;
        }

        /** The next whole text message within {@code wait}, or null. */
        public String poll(Duration wait) throws InterruptedException {
            return received.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** The status code the peer closed with, waiting at most 20 s for its close. */
        public int closedWith() throws InterruptedException, ExecutionException, TimeoutException {
            return closed.get(20, TimeUnit.SECONDS);
        }

        public void send(String text) throws InterruptedException, ExecutionException, TimeoutException {
            socket.sendText(text, true).get(20, TimeUnit.SECONDS);
        }

        /** Sends a normal close and waits (at most 20 s) for the peer's close; the peer's status code. */
        public int close() throws InterruptedException, ExecutionException, TimeoutException {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(20, TimeUnit.SECONDS);
            return closed.get(20, TimeUnit.SECONDS);
        }
    }
}
