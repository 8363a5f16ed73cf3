package dev.dockyard.executor.envd;

import dev.dockyard.executor.Reply;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * E2B's envd served by one executor: its {@code process.Process} and {@code filesystem.Filesystem}
 * services over the Connect protocol, and its {@code /files} REST route. It holds what outlives a
 * request (the processes started, the polled watchers) and ends it with the executor. The HTTP
 * faces reach it through {@link EnvdRequests}; the session key was checked before.
 */
public final class Envd implements AutoCloseable {

    /** PATH when the executor has none. */
    static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** envd's keep-alive interval when the client names none. */
    static final Duration DEFAULT_KEEPALIVE = Duration.ofSeconds(90);
    private static final JsonObject PROCESS_KEEPALIVE = Jsonp.createObjectBuilder()
            .add("event", Jsonp.createObjectBuilder().add("keepalive", JsonValue.EMPTY_JSON_OBJECT)).build();
    private static final JsonObject WATCH_KEEPALIVE = Jsonp.createObjectBuilder()
            .add("keepalive", JsonValue.EMPTY_JSON_OBJECT).build();

    private final EnvdUsers users;
    private final EnvdProcesses processes;
    private final EnvdFilesystem filesystem = new EnvdFilesystem();
    private final EnvdFiles files;

    /**
     * @param environment the executor's environment without its secrets: PATH and HOME come from it
     * @param configured the runtime's configured variables, which every process started gets
     */
    public Envd(Map<String, String> environment, Supplier<Map<String, String>> configured) {
        this(EnvdUsers.ofThisProcess(Path.of(environment.getOrDefault("HOME", System.getProperty("user.home")))),
                environment.getOrDefault("PATH", DEFAULT_PATH), configured);
    }

    Envd(EnvdUsers users, String path, Supplier<Map<String, String>> configured) {
        this.users = users;
        this.processes = new EnvdProcesses(path, users, configured);
        this.files = new EnvdFiles(users);
    }

    /** Whether {@code path} (no leading slash) names one of envd's RPCs. */
    static boolean isRpc(String path) {
        return path.startsWith("process.Process/") || path.startsWith("filesystem.Filesystem/");
    }

    /** Whether {@code path} names a streaming RPC, whose answers are envelopes under HTTP 200. */
    static boolean isStream(String path) {
        return path.equals("process.Process/Start") || path.equals("process.Process/Connect")
                || path.equals("filesystem.Filesystem/WatchDir");
    }

    /** One RPC: {@code path} is {@code service/method}; {@code header} reads a request header (any case). */
    Reply rpc(String path, Function<String, String> header, InputStream body) {
        try {
            if (isStream(path)) {
                return stream(path, header, body);
            }
            JsonObject request = ConnectWire.readUnary(body);
            return ConnectWire.unary(unary(path, header, request));
        } catch (ConnectError e) {
            return isStream(path) ? ConnectWire.streamError(e) : ConnectWire.unaryError(e);
        } catch (IOException e) {
            ConnectError error = ConnectError.invalidArgument("the request could not be read: " + e.getMessage());
            return isStream(path) ? ConnectWire.streamError(error) : ConnectWire.unaryError(error);
        }
    }

    private JsonObject unary(String path, Function<String, String> header, JsonObject request) {
        return switch (path) {
            case "process.Process/List" -> processes.list();
            case "process.Process/SendInput" -> processes.sendInput(request);
            case "process.Process/CloseStdin" -> processes.closeStdin(request);
            case "process.Process/SendSignal" -> processes.sendSignal(request);
            case "process.Process/Update" -> processes.update(request);
            case "filesystem.Filesystem/Stat" -> filesystem.stat(user(header), request);
            case "filesystem.Filesystem/MakeDir" -> filesystem.makeDir(user(header), request);
            case "filesystem.Filesystem/Move" -> filesystem.move(user(header), request);
            case "filesystem.Filesystem/ListDir" -> filesystem.listDir(user(header), request);
            case "filesystem.Filesystem/Remove" -> filesystem.remove(user(header), request);
            case "filesystem.Filesystem/CreateWatcher" -> filesystem.createWatcher(user(header), request);
            case "filesystem.Filesystem/GetWatcherEvents" -> filesystem.getWatcherEvents(request);
            case "filesystem.Filesystem/RemoveWatcher" -> filesystem.removeWatcher(request);
            default -> throw new ConnectError("unimplemented", path + " is not implemented");
        };
    }

    private Reply stream(String path, Function<String, String> header, InputStream body) throws IOException {
        JsonObject request = ConnectWire.readEnvelope(body);
        Duration keepalive = keepalive(header.apply("Keepalive-Ping-Interval"));
        Duration timeout = timeout(header.apply("Connect-Timeout-Ms"));
        EventStream client = new EventStream();
        switch (path) {
            case "process.Process/Start" -> {
                // the timeout is the process's lifetime: it is killed then, and its end ends the stream
                processes.start(user(header), request, client, timeout);
                return streamed(out -> client.writeTo(out, keepalive, PROCESS_KEEPALIVE, null));
            }
            case "process.Process/Connect" -> {
                processes.connect(request, client);
                return streamed(out -> client.writeTo(out, keepalive, PROCESS_KEEPALIVE, timeout));
            }
            default -> {
                Path watched = EnvdFilesystem.watchable(user(header), request);
                DirectoryWatch watch = EnvdFilesystem.watchDir(watched, request, client);
                return streamed(out -> {
                    try (watch) {
                        client.writeTo(out, keepalive, WATCH_KEEPALIVE, timeout);
                    }
                });
            }
        }
    }

    private static Reply streamed(Reply.Streamed body) {
        return Reply.streamed(ConnectWire.STREAM_TYPE, body, Map.of());
    }

    private EnvdUsers.User user(Function<String, String> header) {
        return users.fromAuthorization(header.apply("Authorization"));
    }

    /** {@code Keepalive-Ping-Interval}: seconds; absent or not a positive number, envd's 90 s. */
    static Duration keepalive(String value) {
        try {
            long seconds = value == null ? 0 : Long.parseLong(value.strip());
            return seconds > 0 ? Duration.ofSeconds(Math.min(seconds, 3600)) : DEFAULT_KEEPALIVE;
        } catch (NumberFormatException e) {
            return DEFAULT_KEEPALIVE;
        }
    }

    /** {@code Connect-Timeout-Ms}: at most 10 digits (the Connect specification); absent or 0: none. */
    static Duration timeout(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String digits = value.strip();
        if (digits.length() > 10 || !digits.chars().allMatch(Character::isDigit)) {
            throw ConnectError.invalidArgument("Connect-Timeout-Ms must be up to 10 digits");
        }
        long millis = Long.parseLong(digits);
        return millis > 0 ? Duration.ofMillis(millis) : null;
    }

    Reply download(String path, String username) {
        return files.download(path, username);
    }

    Reply upload(String contentType, String contentEncoding, Map<String, List<String>> headers, InputStream body,
                 String path, String username) {
        return files.upload(contentType, contentEncoding, headers, body, path, username);
    }

    /** The executor is stopping: processes are killed and watches closed. */
    @Override
    public void close() {
        processes.close();
        filesystem.close();
    }
}
