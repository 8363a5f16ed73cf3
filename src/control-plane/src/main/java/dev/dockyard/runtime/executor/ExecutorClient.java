package dev.dockyard.runtime.executor;

import dev.dockyard.backend.BackendException;
import dev.dockyard.http.DeclaredBodies;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * HTTP to executors. One client for the application keeps connections to each sandbox alive, so
 * an action costs one local round trip, not a TCP handshake.
 */
@ApplicationScoped
public class ExecutorClient {

    public static final String SESSION_HEADER = "X-Session-API-Key";
    public static final String REQUEST_ID_HEADER = "X-Request-ID";

    /** How an action's body to the executor begins: {@code {"action": <the dict>}}. */
    private static final byte[] ACTION_PREFIX = "{\"action\":".getBytes(StandardCharsets.US_ASCII);
    /**
     * The longest answer given one allocation of its announced length (larger ones are read as they
     * come): a 1 MB file read answers about 1.1 MB, and a sandbox that announces more than it sends
     * holds no more than this per action.
     */
    private static final int PRESIZED_ANSWER = 4 * 1024 * 1024;
    /** What {@link #begun} reads ahead of a download's client. */
    private static final int BEGUN_BYTES = 64 * 1024;
    private static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(30);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(2);
    /** Time an executor gets beyond the action's own hard timeout to answer. */
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** True when the executor answers {@code GET /ready} with 200; false while it is not up yet. */
    /**
     * Whether the runtime's sandbox serves: Dockyard's executor says it is ready, or the program of
     * another image answers HTTP on its main port.
     */
    public boolean isServing(SandboxRuntime runtime, URI endpoint) {
        return runtime.program().isPresent() ? answersHttp(endpoint) : isReady(endpoint, runtime.sessionKey());
    }

    /**
     * Whether a server of another image answers on its main port: any HTTP answer below 500 to
     * {@code GET /alive} (OpenHands' servers answer 200 there once up; others may say 404, and
     * still answer).
     */
    public boolean answersHttp(URI endpoint) {
        Alive alive = alive(endpoint);
        return alive.status() > 0 && alive.status() < 500;
    }

    /**
     * Whether nothing serves at the executor's address any more: {@code GET /alive} (no key) is
     * refused, reset or closed unanswered. An executor that answers late is not gone: it may only
     * be slow, as on a loaded node, and no recovery would follow for it.
     */
    public boolean isGone(URI executor) {
        return alive(executor) == Alive.GONE;
    }

    /** What {@code GET /alive} (no key) at {@code endpoint} met: an answer's status, or how it failed. */
    private record Alive(int status) {
        /** Refused, reset or closed unanswered. */
        static final Alive GONE = new Alive(-1);
        /** No answer within {@link #READY_TIMEOUT}, or the caller was interrupted. */
        static final Alive SILENT = new Alive(0);
    }

    private Alive alive(URI endpoint) {
        HttpRequest request = HttpRequest.newBuilder(at(endpoint, "/alive")).timeout(READY_TIMEOUT).GET().build();
        try {
            return new Alive(http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
        } catch (HttpTimeoutException e) {
            return Alive.SILENT;
        } catch (IOException e) {
            return Alive.GONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Alive.SILENT;
        }
    }

    public boolean isReady(URI executor, String sessionKey) {
        HttpRequest request = HttpRequest.newBuilder(at(executor, "/ready"))
                .header(SESSION_HEADER, sessionKey).timeout(READY_TIMEOUT).GET().build();
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 503 && answer.body().contains("\"failed\"")) {
                try (var reader = Jsonp.createReader(new StringReader(answer.body()))) {
                    JsonObject failed = reader.readObject();
                    if ("failed".equals(failed.getString("status", ""))) {
                        throw new PluginFailedException(failed.getString("plugin", "?"), failed.getString("detail", ""));
                    }
                } catch (JsonException notJson) {
                    return false;
                }
            }
            return answer.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A plugin the sandbox was started with could not start: it never will be ready. */
    public static class PluginFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PluginFailedException(String plugin, String detail) {
            super("plugin '" + plugin + "' failed to start: " + detail);
        }
    }

    /**
     * Sends one action dict; the answer is the executor's status and body, passed on verbatim.
     *
     * @throws ExecutorUnreachableException when no answer comes back
     */
    public ExecutorAnswer execute(URI executor, String sessionKey, JsonObject action, Duration hardTimeout,
                                  String requestId) {
        RawAnswer answer = execute(executor, sessionKey, action.toString().getBytes(StandardCharsets.UTF_8),
                hardTimeout, requestId);
        return new ExecutorAnswer(answer.status(), answer.text());
    }

    /**
     * Sends one action dict given as its JSON text in UTF-8, as a client sent it: not parsed and
     * written again (for a megabyte's file write, that was a third of the control plane's CPU for
     * the action, JFR 2026-12-01). The caller has checked that it is one JSON object.
     *
     * @throws ExecutorUnreachableException when no answer comes back
     */
    public RawAnswer execute(URI executor, String sessionKey, byte[] actionJson, Duration hardTimeout,
                             String requestId) {
        byte[] body = new byte[ACTION_PREFIX.length + actionJson.length + 1];
        System.arraycopy(ACTION_PREFIX, 0, body, 0, ACTION_PREFIX.length);
        System.arraycopy(actionJson, 0, body, ACTION_PREFIX.length, actionJson.length);
        body[body.length - 1] = '}';
        // HttpURLConnection rather than java.net.http for the hot path: it answers on the calling
        // thread over a kept-alive connection, with no hand-off to a selector thread and back
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) at(executor, "/execute_action").toURL().openConnection();
            connection.setRequestMethod("POST");
            connection.setConnectTimeout(2_000);
            connection.setReadTimeout((int) Math.min(Integer.MAX_VALUE, hardTimeout.plus(ANSWER_GRACE).toMillis()));
            connection.setDoOutput(true);
            // not in streaming mode: streaming sends the headers and the body as two segments, and the
            // body waited for the executor's delayed ACK of the first (measured 2026-11-29, straight to
            // an embedded executor: echo p50 3.2 ms streamed, 0.85 ms buffered); the body is in memory
            // anyway, and buffered it goes out with the headers
            connection.setRequestProperty(SESSION_HEADER, sessionKey);
            connection.setRequestProperty("Content-Type", "application/json");
            if (requestId != null && !requestId.isBlank()) {
                connection.setRequestProperty(REQUEST_ID_HEADER, requestId);
            }
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            byte[] answer;
            try (InputStream read = in) {
                answer = read == null ? new byte[0] : readAnswer(read, connection.getContentLengthLong());
            }
            return new RawAnswer(status, answer);
        } catch (IOException e) {
            if (connection != null) {
                connection.disconnect();
            }
            throw new ExecutorUnreachableException("The sandbox's executor did not answer: " + e, e);
        }
    }

    /**
     * The answer, in one array when its length is announced: a read's megabyte without growing
     * copies. The sandbox is not trusted with more than {@link #PRESIZED_ANSWER} for one allocation.
     */
    private static byte[] readAnswer(InputStream in, long declared) throws IOException {
        if (declared < 0 || declared > Integer.MAX_VALUE - 8) {
            return in.readAllBytes();
        }
        return DeclaredBodies.read(in, (int) declared, PRESIZED_ANSWER);
    }

    /**
     * Pushes configuration into a ready sandbox ({@code POST /configure}). The body holds secrets:
     * it is built here, sent, and never logged; a failure names the status only.
     */
    public void configure(URI executor, String sessionKey,
                          SandboxConfiguration configuration) {
        JsonObjectBuilder vars = Jsonp.createObjectBuilder();
        configuration.env().forEach(vars::add);
        JsonObjectBuilder body = Jsonp.createObjectBuilder().add("env", vars);
        if (configuration.fileAccess() != null) {
            body.add("fileAccess", configuration.fileAccess());
        }
        if (configuration.gitToken() != null) {
            body.add("gitToken", configuration.gitToken()).add("gitScope", configuration.gitScope());
        }
        HttpRequest request = HttpRequest.newBuilder(at(executor, "/configure")).header(SESSION_HEADER, sessionKey)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body.build().toString())).build();
        try {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status != 204) {
                throw new BackendException("the executor refused the configuration (HTTP "
                        + status + ")");
            }
        } catch (IOException e) {
            throw new BackendException("the executor could not be configured: "
                    + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while configuring the executor");
        }
    }

    /** Streams a multipart upload through to the executor's {@code /upload_file}. */
    public ExecutorAnswer upload(URI executor, String sessionKey, String contentType, InputStream body,
                                 String destination, boolean recursive) {
        URI target = at(executor, "/upload_file?destination=" + encode(destination) + "&recursive=" + recursive);
        HttpRequest request = HttpRequest.newBuilder(target).header(SESSION_HEADER, sessionKey)
                .header("Content-Type", contentType).timeout(TRANSFER_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> body)).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new ExecutorAnswer(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new ExecutorUnreachableException("The sandbox's executor did not take the upload: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorUnreachableException("Interrupted during the upload", e);
        }
    }

    /** Opens the executor's zip stream of {@code path}; the caller closes the body. */
    public HttpResponse<InputStream> download(URI executor, String sessionKey, String path) {
        HttpRequest request = HttpRequest.newBuilder(at(executor, "/download_files?path=" + encode(path)))
                .header(SESSION_HEADER, sessionKey).timeout(TRANSFER_TIMEOUT).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new ExecutorUnreachableException("The sandbox's executor did not answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorUnreachableException("Interrupted during the download", e);
        }
    }

    /**
     * A download's zip with its first bytes read already: an executor that went away after its
     * answer's head and before its body (its engine stopping mid-archive) is an
     * {@link ExecutorUnreachableException} here, which the caller can still answer with a status,
     * rather than a stream that fails once a {@code 200} is under way to the client.
     */
    public static InputStream begun(InputStream zip) {
        BufferedInputStream buffered = new BufferedInputStream(zip, BEGUN_BYTES);
        buffered.mark(1);
        try {
            buffered.read(); // fills the buffer with what has come; -1 for an empty body, which is kept
            buffered.reset();
            return buffered;
        } catch (IOException e) {
            try {
                buffered.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw new ExecutorUnreachableException("The sandbox's executor stopped answering before the download "
                    + "began: " + e, e);
        }
    }

    /**
     * {@code pathAndQuery} under the executor's address, its path kept: an executor reached through
     * a proxy (a remote node's service URL, {@code http://host/rt-…}) is served under that path.
     */
    static URI at(URI executor, String pathAndQuery) {
        String base = executor.toString();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + pathAndQuery);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8);
    }

    /** An executor's answer: HTTP status and JSON body. */
    public record ExecutorAnswer(int status, String body) {
    }

    /** An executor's answer as it came: HTTP status and the JSON body's bytes (UTF-8). */
    public record RawAnswer(int status, byte[] body) {

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The executor could not be reached or did not answer in time. */
    public static class ExecutorUnreachableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ExecutorUnreachableException(String message, Throwable cause) {
            super(message, cause);
        }

        /**
         * The executor is gone rather than slow: the connection was refused (nothing listens) or
         * closed with no answer (its process died mid-request, or the engine's port forwarder took
         * the connection for a sandbox that is stopping). Not when it did not answer in time.
         */
        public boolean executorGone() {
            boolean io = false;
            for (Throwable t = getCause(); t != null; t = t.getCause()) {
                if (t instanceof InterruptedIOException || t instanceof HttpTimeoutException) {
                    return false;
                }
                io |= t instanceof IOException;
            }
            return io;
        }
    }
}
