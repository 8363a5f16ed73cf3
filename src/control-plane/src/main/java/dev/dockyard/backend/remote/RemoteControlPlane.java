package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * One remote control plane, as the remote backend calls it: each method is one call of the
 * remote's API; retrying is {@link RemoteCalls}' business. The exchanges themselves, with the
 * API key, are {@link RemoteHttp}'s: no answer is a {@link RemoteUnreachableException}, an answer
 * that is an error a {@link BackendException} naming the status and the remote's problem detail.
 * What an answer means is {@link RemoteAnswers}': one that is not what Dockyard's API answers is a
 * {@link BackendException} too, never a NullPointerException or ClassCastException. A runtime's
 * event stream is followed by {@link RuntimeEvents}. Neither the key nor a runtime's key is ever
 * in a message.
 */
public class RemoteControlPlane {

    /** The most runtimes a Dockyard list answers (newest first). */
    static final int LIST_LIMIT = 1000;
    /** Dockyard's statuses of a runtime that holds a sandbox. */
    static final List<String> LIVE_STATUSES = List.of("STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED",
            "READY", "PAUSED", "HIBERNATED", "ERROR_RUNTIME_DISCONNECTED");
    /** A workspace's way in can take long (the remote unpacks it before it answers). */
    static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(30);

    /** Runtimes' service URLs there, by remote id (see {@link #serviceUrl(String)}). */
    private final Map<String, URI> serviceUrls = new ConcurrentHashMap<>();

    private final RemoteNodeConfig settings;
    private final RemoteHttp http;
    private final RemoteAnswers answers;
    private final RuntimeEvents events;

    public RemoteControlPlane(RemoteNodeConfig settings) {
        this(settings, Clock.systemUTC());
    }

    public RemoteControlPlane(RemoteNodeConfig settings, Clock clock) {
        this.settings = settings;
        this.http = new RemoteHttp(settings, clock);
        this.answers = new RemoteAnswers(settings);
        this.events = new RuntimeEvents(settings, http, answers);
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
        return http.unansweredSince();
    }

    /** Now, by this client's clock. */
    Instant now() {
        return http.now();
    }

    /** A cheap authenticated call: answers only when the remote is up and the key is good. */
    public void ping() {
        http.send("GET", "/runtime-api/registry_prefix", null, null, 200);
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
        JsonObject started = answers.json(http.send("POST", "/runtime-api/start", body, session, 200, 201));
        String id = answers.read("its started runtime", () -> RemoteAnswers.text(started, "runtime_id"));
        try {
            String url = RemoteAnswers.optionalText(started, "url");
            if (url != null) {
                serviceUrls.put(id, answers.serviceUrl(url));
            }
        } catch (RuntimeException e) {
            // the runtime is there: its url is asked again when it is needed, and refused then
        }
        return id;
    }

    /**
     * The runtime's service URL there: the {@code url} its Remote Runtime API gives (on the remote's
     * own services' port, in whatever mode it serves them), as its start answered or, after this
     * control plane restarted, as asked once then. Only one on the node's own scheme and host is
     * taken ({@link RemoteAnswers#serviceUrl}).
     */
    public URI serviceUrl(String id) {
        URI known = serviceUrls.get(id);
        if (known != null) {
            return known;
        }
        JsonObject runtime = answers.json(http.send("GET", "/runtime-api/runtime/" + RemoteHttp.encode(id), null, null,
                200));
        URI url = answers.serviceUrl(answers.read("the url of runtime " + id,
                () -> RemoteAnswers.text(runtime, "url")));
        serviceUrls.put(id, url);
        return url;
    }

    /** Forgets what is known of the runtime's url: the next {@link #serviceUrl} asks again. */
    public void forgetServiceUrl(String id) {
        serviceUrls.remove(id);
    }

    /** The remote runtime of {@code session} (the live one, else its latest), or empty. */
    public Optional<String> session(String session) {
        HttpResponse<String> answer = http.send("GET", "/runtime-api/sessions/" + RemoteHttp.encode(session), null,
                null, 200, 404);
        if (answer.statusCode() == 404) {
            return Optional.empty();
        }
        JsonObject found = answers.json(answer);
        return Optional.of(answers.read("the runtime of a session", () -> RemoteAnswers.text(found, "runtime_id")));
    }

    /** The runtime by its remote id, or empty when the remote has none (or it is not this key's user's). */
    public Optional<RemoteRuntime> runtime(String id) {
        HttpResponse<String> answer = http.send("GET", "/api/v1/runtimes/" + RemoteHttp.encode(id), null, null, 200,
                404);
        return answer.statusCode() == 404 ? Optional.empty() : Optional.of(answers.runtimeOf(answers.json(answer)));
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
            JsonObject list = answers.json(http.send("GET", "/api/v1/runtimes?status=" + status, null, null, 200));
            JsonArray items = answers.read("its list of " + status + " runtimes",
                    () -> Objects.requireNonNull(list.getJsonArray("runtimes"), "'runtimes' is missing"));
            if (items.size() >= LIST_LIMIT) {
                throw new BackendException("remote node '" + settings.node() + "' lists " + LIST_LIMIT + " or more "
                        + status + " runtimes: its list may be cut, so it is not taken as complete");
            }
            for (JsonValue item : items) {
                runtimes.add(answers.runtimeOf(item));
            }
        }
        return runtimes;
    }

    /** Freezes it there; already paused is fine. */
    public RemoteRuntime pause(String id) {
        return runtimeAction(id, "pause");
    }

    /** Thaws (or wakes) it there, answering once it is READY again; already READY is fine. */
    public RemoteRuntime resume(String id) {
        return runtimeAction(id, "resume");
    }

    /** Stops its sandbox there, keeping its files (hibernation: it must be paused first). */
    public RemoteRuntime hibernate(String id) {
        return runtimeAction(id, "hibernate");
    }

    private RemoteRuntime runtimeAction(String id, String action) {
        String path = "/api/v1/runtimes/" + RemoteHttp.encode(id) + "/" + action;
        return answers.runtimeOf(answers.json(http.send("POST", path, null, null, 200)));
    }

    /** Deletes it there (its sandbox and workspace); gone already is fine. */
    public void delete(String id) {
        http.send("DELETE", "/api/v1/runtimes/" + RemoteHttp.encode(id), null, null, 204, 404);
        serviceUrls.remove(id);
    }

    /**
     * Follows the runtime's events there ({@code GET /api/v1/runtimes/{id}/events}: its history,
     * then each change as it commits) until {@code settled} accepts a status, and answers that one.
     * Empty when the stream is refused, ends or breaks first, is silent for longer than
     * {@link RuntimeEvents#STREAM_SILENCE}, or {@code deadline} passes: the caller then asks by
     * polling. The waiting is the calling thread's (no other thread is held while the stream is
     * open), and the stream is closed before this returns.
     */
    public Optional<RemoteRuntime> follow(String id, Instant deadline, Predicate<RemoteRuntime> settled) {
        return events.follow(id, deadline, settled);
    }

    /**
     * Downloads {@code path} of the runtime there, as the zip its executor makes of it, into
     * {@code target} (replaced). The runtime must be READY there.
     */
    public void download(String id, String path, Path target) {
        String files = "/api/v1/runtimes/" + RemoteHttp.encode(id) + "/files";
        HttpRequest request = http.request(files + "?path=" + RemoteHttp.encode(path), settings.callTimeout()).GET()
                .build();
        HttpResponse<InputStream> answer = http.exchange("GET", files, request,
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = answer.body()) {
            if (answer.statusCode() != 200) {
                throw http.refusal("GET", files, answer.statusCode(),
                        new String(body.readNBytes(8192), StandardCharsets.UTF_8));
            }
            Files.copy(body, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            http.unanswered();
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
        String path = "/api/v1/runtimes/" + RemoteHttp.encode(id) + "/files";
        HttpRequest request = http.request(path + "?destination=" + RemoteHttp.encode(destination) + "&recursive=true",
                        TRANSFER_TIMEOUT)
                .header("Accept", "application/json")
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new SequenceInputStream(
                        new SequenceInputStream(new ByteArrayInputStream(head), zip), new ByteArrayInputStream(tail))))
                .build();
        HttpResponse<String> answer = http.exchange("POST", path, request, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw http.refusal("POST", path, answer.statusCode(), answer.body());
        }
    }

    /** Whether the remote's engine has {@code image}, and whether it is a runtime image. */
    public Optional<Boolean> runtimeImage(String image) {
        JsonObject answer = answers.json(http.send("GET", "/api/v1/images/exists?image=" + RemoteHttp.encode(image),
                null, null, 200));
        return answers.read("whether it has image " + image, () -> answer.getBoolean("exists", false)
                ? Optional.of(answer.getBoolean("runtimeImage", false)) : Optional.empty());
    }
}
