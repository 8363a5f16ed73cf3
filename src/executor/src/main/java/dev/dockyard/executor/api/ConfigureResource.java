package dev.dockyard.executor.api;

import dev.dockyard.executor.ActionExecutor;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code POST /configure} (a Dockyard addition): {@code {"env": {"NAME": "value"}, "fileAccess":
 * "workspace"|"anywhere", "gitToken": "..."}} from the control plane after the executor is ready.
 * The git token is for git alone (its credential helper), never the shell's environment. Answers
 * 204 and never echoes a value.
 *
 * <p>204 means the values are stored and will be in the persistent shell before the agent's next
 * command runs there: sourced at once when the shell is idle, or, while a command runs, just
 * before the next one. Header {@value #DELIVERY_HEADER} says which ({@code sourced} or
 * {@code pending}).
 */
@Path("configure")
public class ConfigureResource {

    static final String DELIVERY_HEADER = "Dockyard-Shell-Configuration";
    private static final Pattern NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");
    private final ExecutorLifecycle lifecycle;

    ConfigureResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response configure(JsonObject body) {
        if (!lifecycle.initialized()) {
            return ActionResource.detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        Map<String, String> env = new LinkedHashMap<>();
        JsonValue given = body == null ? null : body.get("env");
        if (given != null && given.getValueType() == JsonValue.ValueType.OBJECT) {
            for (Map.Entry<String, JsonValue> e : given.asJsonObject().entrySet()) {
                if (!NAME.matcher(e.getKey()).matches() || !(e.getValue() instanceof JsonString value)) {
                    return ActionResource.detail(Response.Status.BAD_REQUEST, "env names must be shell variable "
                            + "names and values strings (offending name: " + e.getKey() + ")");
                }
                env.put(e.getKey(), value.getString());
            }
        }
        String fileAccess = body == null ? null : body.getString("fileAccess", null);
        String gitToken = body == null ? null : body.getString("gitToken", null);
        String gitScope = body == null ? null : body.getString("gitScope", null);
        if (gitToken != null && (gitScope == null || !gitScope.matches("https?://[A-Za-z0-9.\\[\\]:-]+"))) {
            return ActionResource.detail(Response.Status.BAD_REQUEST, "gitToken needs gitScope: the scheme, host "
                    + "and port of the one server git may send it to");
        }
        ActionExecutor.Delivery delivery;
        try {
            delivery = lifecycle.executor().configure(env, fileAccess);
            if (gitToken != null) {
                lifecycle.executor().configureGit(gitToken, gitScope);
            }
        } catch (IOException e) {
            return ActionResource.detail(Response.Status.INTERNAL_SERVER_ERROR, "Configuration failed: "
                    + e.getClass().getSimpleName());
        }
        return Response.noContent().header(DELIVERY_HEADER, delivery.name().toLowerCase(Locale.ROOT)).build();
    }
}
