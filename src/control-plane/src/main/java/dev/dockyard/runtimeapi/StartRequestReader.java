package dev.dockyard.runtimeapi;

import dev.dockyard.api.JsonFields;
import dev.dockyard.api.Problem;
import dev.dockyard.api.SafeIds;
import dev.dockyard.application.remote.RemoteStart;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads {@code POST /start} as OpenHands' clients send it: {@code command} a list (legacy
 * runtime, app server) or a string (SDK: run by {@code /bin/sh -c}); {@code runtime_class} is
 * mapped to Dockyard's isolation ({@link #RUNTIME_CLASSES}): {@code gvisor} or {@code runsc} is
 * gVisor (a node without it refuses, as for /api/v1), {@code runc} is runc, and
 * {@code sysbox-runc} or {@code sysbox}, which OpenHands' SDK sends in every start, asks for the
 * node's default (Dockyard has no Sysbox, and the SDK's default must neither weaken a node whose
 * admin chose gVisor nor miss its warm pools); any other class is refused by name;
 * {@code image_pull_policy} is accepted and ignored (Dockyard pulls from no registry).
 * Any other member is refused by name, like everywhere in the API: {@link #FIELDS} is every member
 * OpenHands' RemoteRuntime, app server and SDK send, and Dockyard's extensions {@code node} (the
 * backend node to run on, as in /api/v1; placement chooses when it is absent) and
 * {@code session_api_key} (the service key, chosen by a control plane that uses this one as a
 * remote node), {@code network} and {@code egress} (the egress policy, read as /api/v1's
 * {@code sandbox.network} and {@code sandbox.egress} by the resource), {@code executor_server}
 * (/api/v1's {@code sandbox.executorServer}: {@code embedded} or {@code liberty}; a remote node's
 * control plane sends its runtime's). Anything malformed is a 400 naming the member.
 */
final class StartRequestReader {

    /** What OpenHands' clients send to /start; image_pull_policy is taken and ignored. */
    static final Set<String> FIELDS = Set.of("image", "command", "working_dir", "environment", "session_id",
            "resource_factor", "run_as_user", "run_as_group", "fs_group", "runtime_class", "image_pull_policy", "node",
            "session_api_key", "network", "egress", "executor_server");
    /** OpenHands' name for gVisor's runtime class (config.sandbox.remote_runtime_class, the SDK's runtime_class). */
    static final String GVISOR = "gvisor";
    /**
     * The runtime classes a start may name, each with Dockyard's (absent: the node's default):
     * Kubernetes' names for gVisor and runc, and Sysbox's, the SDK's default.
     */
    static final Map<String, Optional<String>> RUNTIME_CLASSES = Map.of(GVISOR, Optional.of(SandboxIsolation.GVISOR),
            "runsc", Optional.of(SandboxIsolation.GVISOR), "runc", Optional.of(SandboxIsolation.RUNC),
            "sysbox-runc", Optional.empty(), "sysbox", Optional.empty());
    /** A chosen service key: as long and of the alphabet of the keys Dockyard makes (URL-safe base64). */
    private static final Pattern SERVICE_KEY = Pattern.compile("[A-Za-z0-9_-]{32,200}");
    private static final Pattern NODE = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][a-z0-9._/:@-]{0,299}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Set<Integer> FACTORS = Set.of(1, 2, 4, 8);
    /** What the sealed columns hold with room to spare (sealing adds a third). */
    private static final int MAX_ENV_BYTES = 16_000;
    private static final int MAX_COMMAND_BYTES = 8_000;
    /** Names a shell (bash as /bin/sh) holds read-only: exporting one kills the start script. */
    private static final Set<String> READ_ONLY = Set.of("UID", "EUID", "PPID", "BASHOPTS", "SHELLOPTS",
            "BASH_VERSINFO");

    private StartRequestReader() {
    }

    static RemoteStart read(JsonObject body, String publicBase) {
        if (body == null) {
            throw invalid("a JSON body is required: {\"image\": …, \"session_id\": …}");
        }
        JsonFields.requireOnly(body, FIELDS, "");
        String sessionId = string(body, "session_id");
        if (sessionId == null) {
            throw invalid("session_id is required: an id of " + SafeIds.ALPHABET + " characters");
        }
        SafeIds.require(sessionId, "session_id");
        String image = string(body, "image");
        if (image == null || !IMAGE.matcher(image).matches()) {
            throw invalid("image is required: an image reference such as ghcr.io/openhands/agent-server:tag");
        }
        List<String> command = command(body.get("command"));
        String workingDir = string(body, "working_dir");
        if (workingDir != null && (!workingDir.startsWith("/") || workingDir.length() > 1000)) {
            throw invalid("working_dir must be an absolute path");
        }
        Map<String, String> environment = environment(body.get("environment"));
        int factor = integer(body, "resource_factor", 1);
        if (!FACTORS.contains(factor)) {
            throw invalid("resource_factor must be 1, 2, 4 or 8");
        }
        Integer uid = optionalId(body, "run_as_user");
        Integer gid = optionalId(body, "run_as_group");
        Integer fsGroup = optionalId(body, "fs_group");
        if (uid == null && gid != null) {
            // Docker cannot keep the image's user with another group: it would run as root
            throw invalid("run_as_group needs run_as_user");
        }
        String user = uid == null ? null : gid == null ? String.valueOf(uid) : uid + ":" + gid;
        String asked = string(body, "runtime_class");
        asked = asked == null || asked.isBlank() ? null : asked.strip();
        if (asked != null && !RUNTIME_CLASSES.containsKey(asked)) {
            throw invalid("runtime_class must be one of " + new TreeSet<>(RUNTIME_CLASSES.keySet()));
        }
        String runtimeClass = asked == null ? null : RUNTIME_CLASSES.get(asked).orElse(null);
        String node = string(body, "node");
        if (node != null && !NODE.matcher(node).matches()) {
            throw invalid("node must be the name of a backend node (lower-case letters, digits and dashes)");
        }
        String serviceKey = string(body, "session_api_key");
        if (serviceKey != null && !SERVICE_KEY.matcher(serviceKey).matches()) {
            // the value is never echoed: it is a secret
            throw invalid("session_api_key must be 32 to 200 URL-safe base64 characters (A-Z a-z 0-9 _ -)");
        }
        String server = string(body, "executor_server");
        ExecutorServer executorServer = server == null ? null : ExecutorServer.named(server).orElseThrow(() ->
                invalid("executor_server '" + server + "' is not one of " + ExecutorServer.NAMES));
        return new RemoteStart(sessionId, image, command, workingDir, environment, factor, user,
                fsGroup == null ? null : fsGroup.longValue(), publicBase, runtimeClass, node, serviceKey)
                .withExecutorServer(executorServer);
    }

    private static List<String> command(JsonValue value) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (value instanceof JsonString s) {
            if (s.getString().isBlank()) {
                return List.of();
            }
            check(utf8(s.getString()) <= MAX_COMMAND_BYTES, "command is longer than " + MAX_COMMAND_BYTES + " bytes");
            check(s.getString().indexOf('\0') < 0, "command must not contain NUL");
            return List.of("/bin/sh", "-c", s.getString());
        }
        if (value instanceof JsonArray array) {
            List<String> command = new ArrayList<>();
            int bytes = 0;
            for (JsonValue part : array) {
                if (!(part instanceof JsonString s)) {
                    throw invalid("command must be a list of strings or a string");
                }
                check(s.getString().indexOf('\0') < 0, "command must not contain NUL");
                bytes += utf8(s.getString());
                command.add(s.getString());
            }
            check(bytes <= MAX_COMMAND_BYTES, "command is longer than " + MAX_COMMAND_BYTES + " bytes");
            return command;
        }
        throw invalid("command must be a list of strings or a string");
    }

    private static Map<String, String> environment(JsonValue value) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Map.of();
        }
        if (!(value instanceof JsonObject object)) {
            throw invalid("environment must be an object of strings");
        }
        check(utf8(object.toString()) <= MAX_ENV_BYTES, "environment is larger than " + MAX_ENV_BYTES + " bytes");
        Map<String, String> environment = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : object.entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches() || READ_ONLY.contains(e.getKey())) {
                throw invalid("environment name '" + e.getKey() + "' is not a variable name a process can be given");
            }
            JsonValue v = e.getValue();
            String text = switch (v.getValueType()) {
                case STRING -> ((JsonString) v).getString();
                case NUMBER, TRUE, FALSE -> v.toString();
                default -> throw invalid("environment." + e.getKey() + " must be a string");
            };
            check(text.indexOf('\0') < 0, "environment." + e.getKey() + " must not contain NUL");
            environment.put(e.getKey(), text);
        }
        return environment;
    }

    private static String string(JsonObject body, String key) {
        JsonValue value = body.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonString s)) {
            throw invalid(key + " must be a string");
        }
        return s.getString();
    }

    private static int integer(JsonObject body, String key, int fallback) {
        JsonValue value = body.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (!(value instanceof JsonNumber n) || !n.isIntegral()) {
            throw invalid(key + " must be an integer");
        }
        try {
            return n.intValueExact();
        } catch (ArithmeticException e) {
            throw invalid(key + " is out of range");
        }
    }

    private static Integer optionalId(JsonObject body, String key) {
        JsonValue value = body.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        int id = integer(body, key, 0);
        check(id >= 0 && id < 2_000_000_000, key + " must be a uid/gid between 0 and 2000000000");
        return id;
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void check(boolean ok, String detail) {
        if (!ok) {
            throw invalid(detail);
        }
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
