package dev.dockyard.executor.api;

import dev.dockyard.executor.ExecutorRequests;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /execute_action}: {@code {"action": <action dict>}} in, observation dict out. With an
 * {@code X-Request-ID} header a retry returns the first answer instead of acting twice.
 */
@Path("execute_action")
public class ActionResource {

    public static final String REQUEST_ID = ExecutorRequests.REQUEST_ID_HEADER;

    private final ExecutorLifecycle lifecycle;

    ActionResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response execute(JsonObject request, @HeaderParam(REQUEST_ID) String requestId) {
        return Replies.of(lifecycle.requests().execute(request, requestId));
    }
}
