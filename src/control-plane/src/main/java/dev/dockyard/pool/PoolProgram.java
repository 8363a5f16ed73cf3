package dev.dockyard.pool;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the members of a pool of another image run instead of Dockyard's executor: an image's own
 * server that starts dormant and is initialised at claim, following the deferred-init contract of
 * OpenHands' agent server ({@code OH_DEFERRED_INIT=true}; {@code POST /api/init} with
 * {@code X-Init-API-Key} delivers the session keys and environment; every other {@code /api}
 * route answers 503 until then). A member is booted with its own key as init key
 * ({@code OH_SECRET_KEY}) and as session key (see {@link MemberSpecs#dormant}); its runtime's
 * clients hold the runtime's service key, never that one.
 *
 * @param command     the argument vector (empty: the image's entrypoint and command)
 * @param workingDir  or null for the image's
 * @param user        {@code uid[:gid]} or null for the image's
 * @param environment variables of the dormant server (nothing per user: that comes with the init)
 * @param fsGroup     an extra group of the server's process (the Remote Runtime API's
 *                    {@code fs_group}, which OpenHands' SDK always sends), or null
 */
public record PoolProgram(List<String> command, String workingDir, String user, Map<String, String> environment,
                          Long fsGroup) {

    public PoolProgram {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
    }

    public PoolProgram(List<String> command, String workingDir, String user, Map<String, String> environment) {
        this(command, workingDir, user, environment, null);
    }

    /** The part of the program a request must equal to be served by the pool. */
    String shape() {
        return String.join("\u0000", command) + "|" + workingDir + "|" + user + (fsGroup == null ? "" : "|" + fsGroup);
    }

    String toJson() {
        JsonArrayBuilder args = Jsonp.createArrayBuilder();
        command.forEach(args::add);
        JsonObjectBuilder env = Jsonp.createObjectBuilder();
        environment.forEach(env::add);
        JsonObjectBuilder json = Jsonp.createObjectBuilder().add("command", args).add("environment", env);
        if (workingDir != null) {
            json.add("workingDir", workingDir);
        }
        if (user != null) {
            json.add("user", user);
        }
        if (fsGroup != null) {
            json.add("fsGroup", fsGroup);
        }
        return json.build().toString();
    }

    static PoolProgram fromJson(String text) {
        try (var reader = Jsonp.createReader(new StringReader(text))) {
            JsonObject json = reader.readObject();
            List<String> command = json.getJsonArray("command").getValuesAs(JsonString.class).stream()
                    .map(JsonString::getString).toList();
            Map<String, String> environment = new LinkedHashMap<>();
            json.getJsonObject("environment").forEach((k, v) -> environment.put(k, ((JsonString) v).getString()));
            return new PoolProgram(command, json.getString("workingDir", null), json.getString("user", null),
                    environment, json.containsKey("fsGroup") ? json.getJsonNumber("fsGroup").longValue() : null);
        }
    }

    @Override
    public String toString() {
        // the environment may hold an admin's secrets
        return "PoolProgram[command=" + command + ", workingDir=" + workingDir + ", user=" + user + ", fsGroup="
                + fsGroup + "]";
    }
}
