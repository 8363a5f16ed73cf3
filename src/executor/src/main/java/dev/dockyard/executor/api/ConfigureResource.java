package dev.dockyard.executor.api;

import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /configure} (a Dockyard addition): {@code {"env": {"NAME": "value"}, "fileAccess":
 * "workspace"|"anywhere", "gitToken": "..."}} from the control plane after the executor is ready.
 * The git token is for git alone (its credential helper), never the shell's environment. Answers
 * 204 and never echoes a value.
 *
 * <p>204 means the values are stored and will be in the persistent shell before the agent's next
 * command runs there: sourced at once when the shell is idle, or, while a command runs, just
 * before the next one. Header {@code Dockyard-Shell-Configuration} says which ({@code sourced} or
 * {@code pending}).
 */
@Path("configure")
public class ConfigureResource {

    private final ExecutorLifecycle lifecycle;

    ConfigureResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response configure(JsonObject body) {
        return Replies.of(lifecycle.requests().configure(body));
    }
}
