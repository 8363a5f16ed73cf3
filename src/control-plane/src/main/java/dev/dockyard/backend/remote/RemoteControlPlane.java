package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * HTTP to one remote control plane, with its API key ({@code X-API-Key}). Each method is one call;
 * retrying is {@link RemoteCalls}' business. No answer is {@link RemoteUnreachableException}; an
 * answer that is an error is a {@link BackendException} naming the status and the remote's
 * problem detail, and so is an answer that is not what Dockyard's API answers (a field missing or
 * of another type, a time that is not one): a malformed answer never escapes as a
 * NullPointerException or ClassCastException. Neither the key nor a runtime's key is ever in a
 * message.
 */
public class RemoteControlPlane {

    /** Runtimes' service URLs there, by remote id (see {@link #serviceUrl(String)}). */
    private final Map<String, URI> serviceUrls = new ConcurrentHashMap<>();

    static final String API_KEY_HEADER = "X-API-Key";
    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
    /** The most runtimes a Dockyard list answers (newest first). */
    static final int LIST_LIMIT = 1000;
    /** Dockyard's statuses of a runtime that holds a sandbox. */
    static final List<String> LIVE_STATUSES = List.of("STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED",
            "READY", "PAUSED", "HIBERNATED", "ERROR_RUNTIME_DISCONNECTED");
    /**
     * How long an event stream may say nothing before it counts as broken: the remote sends a
     * keep-alive comment every 15 s (RuntimeEventStreams), so three missed ones.
     */
    static final Duration STREAM_SILENCE = Duration.ofSeconds(45);
    /** A workspace's way in can take long (the remote unpacks it before it answers). */
    static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(30);

    private final RemoteNodeConfig settings;
    private final Clock clock;
    private final HttpClient http;
    /** Since when no call got an answer (null: the last call got one). */
    private final AtomicReference<Instant> unansweredSince = new AtomicReference<>();

    public RemoteControlPlane(RemoteNodeConfig settings) {
        this(settings, Clock.systemUTC());
    }

    public RemoteControlPlane(RemoteNodeConfig settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The remote's base URL (scheme://host:port[/path]). */
    public URI url() {
        return settings.url();
    }

    /**
     * Since when no call to the remote got an answer (any answer, even an error, clears it): the
     * first of a run of unanswered calls, whoever made it (the node's health probe, the
     * reconciler's list, a user's call). Empty while the remote answers.
     */
    public Optional<Instant> unansweredSince() {
        return Optional.ofNullable(unansweredSince.get());
    }

    /** Now, by this client's clock. */
    Instant now() {
        return clock.instant();
    }

    /** A cheap authenticated call: answers only when the remote is up and the key is good. */
    public void ping() {
        send("GET", "/runtime-api/registry_prefix", null, null, 200);
    }

    /**
     * Starts (or, for a session that has a live runtime there, finds) the runtime of {@code session}
     * running Dockyard's executor of {@code image} on {@code executorServer} (Dockyard's extension
     * {@code executor_server}), whose service key is {@code serviceKey}; answers its id. The member
     * is sent only for a server other than the default: a remote of an earlier version, which
     * refuses members it does not know, still takes every default start, and refuses (400) only
     * what it could not honour.
     */
    public String start(String session, String image, String serviceKey, ExecutorServer executorServer) {
        JsonObjectBuilder request = Jsonp.createObjectBuilder().add("image", image).add("session_id", session)
                .add("session_api_key", serviceKey);
        if (executorServer != null && executorServer != ExecutorServer.DEFAULT) {
            request.add("executor_server", executorServer.apiName());
        }
        JsonObject body = request.build();
        JsonObject started = json(send("POST", "/runtime-api/start", body, session, 200, 201));
        String id = read("its started runtime", () -> text(started, "runtime_id"));
        try {
            String url = optionalText(started, "url");
            if (url != null) {
                serviceUrls.put(id, parsedServiceUrl(url));
            }
        } catch (RuntimeException e) {
            // the runtime is there: its url is asked again when it is needed, and refused then
        }
        return id;
    }

    /**
     * The runtime's service URL there: the {@code url} its Remote Runtime API gives (on the remote's
     * own services' port, in whatever mode it serves them), as its start answered or, after this
     * control plane restarted, as asked once then.
     */
    public URI serviceUrl(String id) {
        URI known = serviceUrls.get(id);
        if (known != null) {
            return known;
        }
        JsonObject runtime = json(send("GET", "/runtime-api/runtime/" + encode(id), null, null, 200));
        URI url = parsedServiceUrl(read("the url of runtime " + id, () -> text(runtime, "url")));
        serviceUrls.put(id, url);
        return url;
    }

    /** Forgets what is known of the runtime's url: the next {@link #serviceUrl} asks again. */
    public void forgetServiceUrl(String id) {
        serviceUrls.remove(id);
    }

    /**
     * A url the remote gave, taken only on the node's own scheme and host (or a host under it, its
     * subdomain mode): the local control plane sends the runtime's key there, so a remote (or
     * anyone between) may not point it at another machine or downgrade it to plain http.
     */
    private URI parsedServiceUrl(String url) {
        URI parsed;
        try {
            parsed = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new BackendException("remote node '" + settings.node() + "' gave a runtime url that is no URL");
        }
        String host = parsed.getHost() == null ? "" : parsed.getHost().toLowerCase(Locale.ROOT);
        String nodeHost = settings.url().getHost().toLowerCase(Locale.ROOT);
        if (!settings.url().getScheme().equalsIgnoreCase(parsed.getScheme())
                || !(host.equals(nodeHost) || host.endsWith("." + nodeHost))) {
            throw new BackendException("remote node '" + settings.node() + "' gave a runtime url on another scheme or "
                    + "host than its own (" + parsed.getScheme() + "://" + host + "): only " + settings.url().getScheme()
                    + "://" + nodeHost + " is trusted with the runtime's key");
        }
        return parsed;
    }

    /** The remote runtime of {@code session} (the live one, else its latest), or empty. */
    public Optional<String> session(String session) {
        HttpResponse<String> answer = send("GET", "/runtime-api/sessions/" + encode(session), null, null, 200, 404);
        if (answer.statusCode() == 404) {
            return Optional.empty();
        }
        JsonObject found = json(answer);
        return Optional.of(read("the runtime of a session", () -> text(found, "runtime_id")));
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
            JsonArray items = read("its list of " + status + " runtimes",
                    () -> Objects.requireNonNull(list.getJsonArray("runtimes"), "'runtimes' is missing"));
            if (items.size() >= LIST_LIMIT) {
                throw new BackendException("remote node '" + settings.node() + "' lists " + LIST_LIMIT + " or more "
                        + status + " runtimes: its list may be cut, so it is not taken as complete");
            }
            for (JsonValue item : items) {
                runtimes.add(runtimeOf(item));
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
        serviceUrls.remove(id);
    }

    /**
     * Follows the runtime's events there ({@code GET /api/v1/runtimes/{id}/events}: its history,
     * then each change as it commits) until {@code settled} accepts a status, and answers that one.
     * Empty when the stream is refused, ends or breaks first, is silent for longer than
     * {@link #STREAM_SILENCE}, or {@code deadline} passes: the caller then asks by polling. The
     * waiting is the calling thread's (no other thread is held while the stream is open), and the
     * stream is closed before this returns.
     */
    public Optional<RemoteRuntime> follow(String id, Instant deadline, Predicate<RemoteRuntime> settled) {
        EventLines lines = new EventLines();
        HttpRequest request = HttpRequest.newBuilder(URI.create(settings.url() + "/api/v1/runtimes/" + encode(id)
                        + "/events")).timeout(settings.callTimeout()).header(API_KEY_HEADER, settings.apiKey())
                .header("Accept", "text/event-stream").GET().build();
        CompletableFuture<HttpResponse<Void>> exchange = http.sendAsync(request, answer -> {
            answered();
            if (answer.statusCode() != 200) {
                lines.end();
                return HttpResponse.BodySubscribers.replacing(null);
            }
            return HttpResponse.BodySubscribers.fromLineSubscriber(lines, l -> null, StandardCharsets.UTF_8, null);
        });
        exchange.whenComplete((answer, failure) -> {
            if (failure != null && !lines.cancelled()) {
                // a failure of our own closing is not the remote's
                unanswered();
            }
            lines.end();
        });
        try {
            ServerSentEvent event = new ServerSentEvent();
            while (true) {
                Duration wait = Duration.between(clock.instant(), deadline);
                if (wait.isNegative() || wait.isZero()) {
                    return Optional.empty();
                }
                Optional<String> line = lines.next(wait.compareTo(STREAM_SILENCE) < 0 ? wait : STREAM_SILENCE);
                if (line.isEmpty()) {
                    return Optional.empty();
                }
                Optional<RemoteRuntime> status = event.add(line.get()).map(data -> statusOf(id, data));
                if (status.isPresent() && settled.test(status.get())) {
                    return status;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while following runtime " + id + " on remote node '"
                    + settings.node() + "'", e);
        } finally {
            lines.cancel();
            exchange.cancel(true);
        }
    }

    /** A {@code status} event's data ({@code {"status", "message", "at"}}) as the runtime's status. */
    private RemoteRuntime statusOf(String id, String data) {
        JsonObject change;
        try (var reader = Jsonp.createReader(new StringReader(data))) {
            change = reader.readObject();
        } catch (JsonException e) {
            throw new BackendException("remote node '" + settings.node() + "' sent an event of runtime " + id
                    + " that is not JSON", e);
        }
        return read("an event of runtime " + id, () -> new RemoteRuntime(id, null, text(change, "status"),
                optionalText(change, "message"), Instant.EPOCH));
    }

    /**
     * Downloads {@code path} of the runtime there, as the zip its executor makes of it, into
     * {@code target} (replaced). The runtime must be READY there.
     */
    public void download(String id, String path, Path target) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(settings.url() + "/api/v1/runtimes/" + encode(id)
                        + "/files?path=" + encode(path))).timeout(settings.callTimeout())
                .header(API_KEY_HEADER, settings.apiKey()).GET().build();
        HttpResponse<InputStream> answer = exchange("GET", "/api/v1/runtimes/" + encode(id) + "/files", request,
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = answer.body()) {
            if (answer.statusCode() != 200) {
                throw refusal("GET", "/api/v1/runtimes/" + encode(id) + "/files", answer.statusCode(),
                        new String(body.readNBytes(8192), StandardCharsets.UTF_8));
            }
            Files.copy(body, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            unanswered();
            throw new RemoteUnreachableException("remote node '" + settings.node() + "' broke off the download of "
                    + path + " of runtime " + id + ": " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Uploads {@code zip} (read to its end, so never sent twice) into {@code destination} of the
     * runtime there, unpacked, as a multipart {@code file} part, and answers once the remote has
     * unpacked it. The runtime must be READY there.
     */
    public void upload(String id, String destination, InputStream zip) {
        String boundary = "dockyard-" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"workspace.zip\""
                + "\r\nContent-Type: application/zip\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        String path = "/api/v1/runtimes/" + encode(id) + "/files";
        HttpRequest request = HttpRequest.newBuilder(URI.create(settings.url() + path + "?destination="
                        + encode(destination) + "&recursive=true")).timeout(TRANSFER_TIMEOUT)
                .header(API_KEY_HEADER, settings.apiKey()).header("Accept", "application/json")
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new SequenceInputStream(
                        new SequenceInputStream(new ByteArrayInputStream(head), zip), new ByteArrayInputStream(tail))))
                .build();
        HttpResponse<String> answer = exchange("POST", path, request, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw refusal("POST", path, answer.statusCode(), answer.body());
        }
    }

    private <T> HttpResponse<T> exchange(String method, String path, HttpRequest request,
                                         HttpResponse.BodyHandler<T> handler) {
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

    private BackendException refusal(String method, String path, int status, String body) {
        return new BackendException("remote node '" + settings.node() + "' answered " + method + " " + path + " with "
                + status + detail(body));
    }

    /** Whether the remote's engine has {@code image}, and whether it is a runtime image. */
    public Optional<Boolean> runtimeImage(String image) {
        JsonObject answer = json(send("GET", "/api/v1/images/exists?image=" + encode(image), null, null, 200));
        return read("whether it has image " + image, () -> answer.getBoolean("exists", false)
                ? Optional.of(answer.getBoolean("runtimeImage", false)) : Optional.empty());
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
        HttpResponse<String> answer = exchange(method, pathOnly(path), request.build(),
                HttpResponse.BodyHandlers.ofString());
        for (int status : expected) {
            if (answer.statusCode() == status) {
                return answer;
            }
        }
        throw refusal(method, pathOnly(path), answer.statusCode(), answer.body());
    }

    /** The remote answered something: it is reachable. */
    void answered() {
        unansweredSince.set(null);
    }

    /** A call got no answer: the remote is unreachable since then, unless it was already. */
    void unanswered() {
        unansweredSince.compareAndSet(null, clock.instant());
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

    private JsonObject json(HttpResponse<String> answer) {
        try (var reader = Jsonp.createReader(new StringReader(answer.body()))) {
            return reader.readObject();
        } catch (RuntimeException e) {
            throw new BackendException("remote node '" + settings.node() + "' answered something that is not a "
                    + "JSON object (is " + settings.url() + " a Dockyard control plane?)", e);
        }
    }

    /** A runtime of the remote's {@code /api/v1}: its id and status at least, as Dockyard answers them. */
    RemoteRuntime runtimeOf(JsonValue value) {
        return read("a runtime", () -> {
            JsonObject runtime = value.asJsonObject();
            String createdAt = optionalText(runtime, "createdAt");
            return new RemoteRuntime(text(runtime, "id"), optionalText(runtime, "conversationId"),
                    text(runtime, "status"), optionalText(runtime, "statusMessage"),
                    createdAt == null ? Instant.EPOCH : Instant.parse(createdAt));
        });
    }

    /**
     * Reads {@code what} out of an answer; an answer that is not shaped as Dockyard's is a
     * {@link BackendException} naming the node and what was read, not a NullPointerException or
     * ClassCastException (or a time that does not parse) escaping to the caller.
     */
    <T> T read(String what, Supplier<T> reading) {
        try {
            return reading.get();
        } catch (NullPointerException | ClassCastException | DateTimeParseException | JsonException
                 | IllegalArgumentException e) {
            throw new BackendException("remote node '" + settings.node() + "' answered " + what + " that is not "
                    + "as Dockyard's API answers it (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); is " + settings.url()
                    + " a Dockyard control plane of this version?", e);
        }
    }

    /** A member that must be a non-empty string. */
    private static String text(JsonObject object, String name) {
        JsonValue value = object.get(name);
        if (!(value instanceof JsonString string) || string.getString().isEmpty()) {
            throw new IllegalArgumentException("'" + name + "' is " + (value == null ? "missing" : "not a non-empty string"));
        }
        return string.getString();
    }

    /** A member that is a string or absent (null: absent or JSON null). */
    private static String optionalText(JsonObject object, String name) {
        JsonValue value = object.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonString string)) {
            throw new IllegalArgumentException("'" + name + "' is not a string");
        }
        return string.getString();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * The lines of an event stream, handed from the HTTP client's thread to the waiting one, one
     * asked for at a time (nothing piles up), and how the stream ended.
     */
    private static final class EventLines implements Flow.Subscriber<String> {
        private static final Object END = new Object();
        private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        private volatile boolean cancelled;

        @Override
        public void onSubscribe(Flow.Subscription given) {
            subscription.set(given);
            if (cancelled) {
                given.cancel();
            } else {
                given.request(1);
            }
        }

        @Override
        public void onNext(String line) {
            queue.add(line);
        }

        @Override
        public void onError(Throwable failure) {
            end();
        }

        @Override
        public void onComplete() {
            end();
        }

        void end() {
            queue.add(END);
        }

        /** The next line within {@code wait}; empty when the stream ended or said nothing that long. */
        Optional<String> next(Duration wait) throws InterruptedException {
            Object item = queue.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (!(item instanceof String line)) {
                return Optional.empty();
            }
            Flow.Subscription given = subscription.get();
            if (given != null) {
                given.request(1);
            }
            return Optional.of(line);
        }

        boolean cancelled() {
            return cancelled;
        }

        void cancel() {
            cancelled = true;
            Flow.Subscription given = subscription.get();
            if (given != null) {
                given.cancel();
            }
        }
    }

    /**
     * One server-sent event being read, line by line (WHATWG's event stream format): its name and
     * its data lines, dispatched at the blank line that ends it; comments ({@code :…}, the remote's
     * keep-alives) are skipped.
     */
    static final class ServerSentEvent {
        private String name = "message";
        private final StringBuilder data = new StringBuilder();
        private boolean hasData;

        /** Takes a line; answers the data of a {@code status} event the line ended. */
        Optional<String> add(String line) {
            if (line.isEmpty()) {
                Optional<String> ended = "status".equals(name) && hasData ? Optional.of(data.toString()) : Optional.empty();
                name = "message";
                data.setLength(0);
                hasData = false;
                return ended;
            }
            if (line.startsWith(":")) {
                return Optional.empty();
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            if (field.equals("event")) {
                name = value;
            } else if (field.equals("data")) {
                if (hasData) {
                    data.append('\n');
                }
                data.append(value);
                hasData = true;
            }
            return Optional.empty();
        }
    }
}
