package dev.dockyard.executor;

import dev.dockyard.executor.envd.EnvdRequests;
import dev.dockyard.executor.files.FileTransfer;
import dev.dockyard.executor.files.MultipartFile;
import dev.dockyard.executor.files.PathGuard;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.protocol.JsonBytes;
import dev.dockyard.protocol.ProtocolJson;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * PROTOCOL.md's requests answered in plain Java: what each path takes, which action or transfer it
 * runs, and the status and body it answers. HTTP servers are thin faces over this (the executor
 * WAR's JAX-RS resources in a sandbox; the control plane's loopback server for runtimes of the
 * {@code cli} backend), so that every face answers the same bytes for the same request.
 *
 * <p>Until the executor has started ({@link Host#executor()} null) every path but {@code /alive},
 * {@code /ready} and {@code /server_info} answers 503.
 */
public final class ExecutorRequests {

    public static final String SESSION_HEADER = "X-Session-API-Key";
    public static final String REQUEST_ID_HEADER = "X-Request-ID";
    /** Says how configuration reached the persistent shell ({@code sourced} or {@code pending}). */
    public static final String DELIVERY_HEADER = "Dockyard-Shell-Configuration";
    /** The paths served without the session key. */
    public static final Set<String> OPEN_PATHS = Set.of("alive", "server_info");

    private static final Pattern NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");
    private static final Pattern GIT_SCOPE = Pattern.compile("https?://[A-Za-z0-9.\\[\\]:-]+");

    /** What a face serves: the executor once started, why it could not start, and its key. */
    public interface Host {

        /** The started executor, or null while it starts (or when it could not). */
        ActionExecutor executor();

        /** Why the executor could not start, or null. */
        String failure();

        /** The expected session key, or null when none was given (then nothing is authorised). */
        byte[] sessionKey();
    }

    private final Host host;
    private final RequestLedger requests = new RequestLedger();
    private final EnvdRequests envd;

    public ExecutorRequests(Host host) {
        this.host = host;
        this.envd = new EnvdRequests(() -> host.executor() == null ? null : host.executor().envd());
    }

    /** E2B's envd routes, served beside PROTOCOL.md's on the same port and behind the same key. */
    public EnvdRequests envd() {
        return envd;
    }

    /**
     * Whether a request for {@code path} (without its leading slash) with {@code givenKey} may be
     * served: the open paths always, the others with the session key, compared in constant time.
     */
    public boolean authorised(String path, String givenKey) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        if (OPEN_PATHS.contains(relative)) {
            return true;
        }
        byte[] expected = host.sessionKey();
        return expected != null && givenKey != null
                && MessageDigest.isEqual(expected, givenKey.getBytes(StandardCharsets.UTF_8));
    }

    /** The answer to a request {@link #authorised} refused. */
    public static Reply forbidden() {
        return Reply.detail(403, "Invalid API Key");
    }

    private boolean initialized() {
        return host.executor() != null;
    }

    private static Reply notInitialized() {
        return Reply.detail(503, "The executor is not initialized");
    }

    /** {@code GET /alive}. */
    public Reply alive() {
        return Reply.json(200, status(initialized() ? "ok" : "not initialized"));
    }

    /**
     * {@code GET /ready}: 200 only when the shell and every requested plugin are up. A plugin that
     * failed to start makes it 503 with {@code "status": "failed"}, the plugin's name and why, so
     * the control plane stops waiting at once and reports it.
     */
    public Reply ready() {
        if (initialized()) {
            var plugins = host.executor().plugins();
            var failed = plugins.failure();
            if (failed.isPresent()) {
                return Reply.json(503, Jsonp.createObjectBuilder().add("status", "failed")
                        .add("plugin", failed.get().getKey()).add("detail", failed.get().getValue()).build());
            }
            if (plugins.ready()) {
                return Reply.json(200, status("ok"));
            }
            return Reply.json(503, Jsonp.createObjectBuilder().add("status", "not ready")
                    .add("detail", "starting plugins " + plugins.names()).build());
        }
        JsonObjectBuilder body = Jsonp.createObjectBuilder().add("status", "not ready");
        if (host.failure() != null) {
            body.add("detail", host.failure());
        }
        return Reply.json(503, body.build());
    }

    /**
     * {@code GET /server_info}: OpenHands' uptime, idle time and {@code resources} (see
     * {@link ResourceUsage}: the executor's own process, sampled over 0.1 s as OpenHands does) with
     * Dockyard's additions beside them: {@code cpu_count}, {@code jvm} (heap in use and its cap) and
     * {@code cgroup_memory} (the sandbox's memory use and limit, where the cgroup says).
     */
    public Reply serverInfo() {
        JsonObjectBuilder resources = Jsonp.createObjectBuilder(ResourceUsage.ofThisProcess().measure())
                .add("cpu_count", Runtime.getRuntime().availableProcessors());
        Runtime jvm = Runtime.getRuntime();
        resources.add("jvm", Jsonp.createObjectBuilder().add("heap_used", jvm.totalMemory() - jvm.freeMemory())
                .add("heap_max", jvm.maxMemory()));
        JsonObjectBuilder cgroup = Jsonp.createObjectBuilder();
        readCgroup("memory.current").ifPresent(v -> cgroup.add("current", v));
        readCgroup("memory.max").ifPresent(v -> cgroup.add("max", v));
        resources.add("cgroup_memory", cgroup);
        ActionExecutor executor = host.executor();
        return Reply.json(200, Jsonp.createObjectBuilder()
                .add("uptime", executor != null ? executor.uptimeSeconds() : 0.0)
                .add("idle_time", executor != null ? executor.idleSeconds() : 0.0)
                .add("resources", resources)
                .build());
    }

    /**
     * {@code POST /execute_action}: {@code {"action": <action dict>}} in, observation dict out, both
     * through {@link JsonBytes} (a file's content goes from the body into the file, and from the
     * file into the answer, as bytes: the faces write JSON values with it). The body array is the
     * action's from then on. With a request id a retry returns the first answer instead of acting
     * twice.
     */
    public Reply execute(byte[] body, String requestId) {
        if (!initialized()) {
            return notInitialized();
        }
        Action action;
        String request;
        try {
            if (body == null || body.length == 0 || !(JsonBytes.read(body) instanceof JsonObject object)
                    || !(object.get("action") instanceof JsonObject dict)) {
                throw new InvalidActionException("The body must be {\"action\": {...}}");
            }
            action = ProtocolJson.actionFromJson(dict);
            request = requestId == null || requestId.isBlank() ? null
                    : new String(JsonBytes.write(object), StandardCharsets.UTF_8);
        } catch (InvalidActionException e) {
            return Reply.detail(400, e.getMessage());
        }
        try {
            ActionExecutor executor = host.executor();
            if (request == null) {
                return Reply.json(200, ProtocolJson.toJson(executor.execute(action)));
            }
            return requests.once(requestId, request, () -> new String(JsonBytes.write(ProtocolJson.toJson(
                            executor.execute(action))), StandardCharsets.UTF_8))
                    .map(answer -> Reply.jsonText(200, answer))
                    .orElseGet(() -> Reply.detail(409,
                            "X-Request-ID " + requestId + " was already used for a different action"));
        } catch (RuntimeException e) {
            return Reply.detail(500, "Internal server error: " + e.getMessage());
        }
    }

    /**
     * {@code POST /configure} (a Dockyard addition): {@code {"env": {...}, "fileAccess": ...,
     * "gitToken": ..., "gitScope": ...}}. Answers 204 with {@value #DELIVERY_HEADER} and never
     * echoes a value.
     */
    public Reply configure(JsonObject body) {
        if (!initialized()) {
            return notInitialized();
        }
        Map<String, String> env = new LinkedHashMap<>();
        JsonValue given = body == null ? null : body.get("env");
        if (given != null && given.getValueType() == JsonValue.ValueType.OBJECT) {
            for (Map.Entry<String, JsonValue> e : given.asJsonObject().entrySet()) {
                if (!NAME.matcher(e.getKey()).matches() || !(e.getValue() instanceof JsonString value)) {
                    return Reply.detail(400, "env names must be shell variable "
                            + "names and values strings (offending name: " + e.getKey() + ")");
                }
                env.put(e.getKey(), value.getString());
            }
        }
        String fileAccess = body == null ? null : body.getString("fileAccess", null);
        String gitToken = body == null ? null : body.getString("gitToken", null);
        String gitScope = body == null ? null : body.getString("gitScope", null);
        if (gitToken != null && (gitScope == null || !GIT_SCOPE.matcher(gitScope).matches())) {
            return Reply.detail(400, "gitToken needs gitScope: the scheme, host "
                    + "and port of the one server git may send it to");
        }
        ActionExecutor.Delivery delivery;
        try {
            delivery = host.executor().configure(env, fileAccess);
            if (gitToken != null) {
                host.executor().configureGit(gitToken, gitScope);
            }
        } catch (IOException e) {
            return Reply.detail(500, "Configuration failed: " + e.getClass().getSimpleName());
        }
        return Reply.noContent(Map.of(DELIVERY_HEADER, delivery.name().toLowerCase(Locale.ROOT)));
    }

    /** {@code POST /upload_file?destination=...&recursive=...}: one multipart part named {@code file}. */
    public Reply upload(String contentType, InputStream body, String destination, boolean recursive) {
        if (!initialized()) {
            return notInitialized();
        }
        ActionExecutor executor = host.executor();
        FileTransfer transfer = executor.transfer();
        String filename;
        try {
            Path dir = transfer.destination(destination, executor.workingDirectory());
            MultipartFile file = MultipartFile.find(contentType, body, "file");
            filename = file.filename();
            transfer.upload(dir, filename, file.content(), recursive);
        } catch (IllegalArgumentException | PathGuard.PathRefusedException e) {
            return Reply.detail(400, e.getMessage());
        } catch (IOException e) {
            return uploadFailed(e);
        }
        return Reply.json(200, Jsonp.createObjectBuilder().add("filename", filename).add("destination", destination)
                .add("recursive", recursive).build());
    }

    /** An upload over the bound is the client's to make smaller (413); any other failure is the executor's. */
    static Reply uploadFailed(IOException e) {
        if (e instanceof FileTransfer.UploadTooLargeException) {
            return Reply.detail(413, e.getMessage());
        }
        return Reply.detail(500, "Upload failed: " + e.getMessage());
    }

    /** {@code GET /download_files?path=...}: a zip of the file or directory. */
    public Reply download(String path) {
        if (!initialized()) {
            return notInitialized();
        }
        if (path == null || !path.startsWith("/")) {
            return Reply.detail(400, "Path must be an absolute path");
        }
        ActionExecutor executor = host.executor();
        Path target;
        try {
            target = executor.guard().check(path, executor.workingDirectory());
        } catch (PathGuard.PathRefusedException e) {
            return Reply.detail(400, e.getMessage());
        }
        if (!Files.exists(target)) {
            return Reply.detail(404, "File not found");
        }
        FileTransfer transfer = executor.transfer();
        String name = target.getFileName() == null ? "root" : target.getFileName().toString();
        return Reply.streamed("application/zip", out -> transfer.download(target, out),
                Map.of("Content-Disposition", "attachment; filename=\"" + name.replace("\"", "") + ".zip\""));
    }

    /**
     * {@code POST /list_files}: the names in a directory; anything it cannot list is an empty list.
     * A missing or relative path starts at the workspace (OpenHands' {@code initial_cwd}), not at
     * the shell's directory.
     */
    public Reply list(JsonObject request) {
        if (!initialized()) {
            return notInitialized();
        }
        ActionExecutor executor = host.executor();
        JsonArrayBuilder names = Jsonp.createArrayBuilder();
        try {
            Path base = executor.workspace();
            String requested = request == null ? null : request.getString("path", null);
            Path dir = requested == null ? base : executor.guard().check(requested, base);
            executor.transfer().list(dir).forEach(names::add);
        } catch (PathGuard.PathRefusedException | IOException e) {
            // OpenHands answers an empty list for anything it cannot list
        }
        return Reply.json(200, names.build());
    }

    private static Optional<Long> readCgroup(String file) {
        try {
            String value = Files.readString(Paths.get("/sys/fs/cgroup", file)).strip();
            return value.equals("max") ? Optional.empty() : Optional.of(Long.parseLong(value));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static JsonObject status(String status) {
        return Jsonp.createObjectBuilder().add("status", status).build();
    }
}
