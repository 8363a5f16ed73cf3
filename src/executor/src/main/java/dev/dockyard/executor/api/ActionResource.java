package dev.dockyard.executor.api;

import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.protocol.ProtocolJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
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

    public static final String REQUEST_ID = "X-Request-ID";

    private final ExecutorLifecycle lifecycle;

    ActionResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response execute(JsonObject request, @HeaderParam(REQUEST_ID) String requestId) {
        if (!lifecycle.initialized()) {
            return detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        Action action;
        try {
            if (request == null || !(request.get("action") instanceof JsonObject dict)) {
                throw new InvalidActionException("The body must be {\"action\": {...}}");
            }
            action = ProtocolJson.actionFromJson(dict);
        } catch (InvalidActionException e) {
            return detail(Response.Status.BAD_REQUEST, e.getMessage());
        }
        try {
            Action toRun = action;
            if (requestId == null || requestId.isBlank()) {
                return Response.ok(ProtocolJson.toJson(lifecycle.executor().execute(toRun))).build();
            }
            return lifecycle.requests().once(requestId, request.toString(),
                            () -> ProtocolJson.toJson(lifecycle.executor().execute(toRun)).toString())
                    .map(answer -> Response.ok(answer, MediaType.APPLICATION_JSON_TYPE).build())
                    .orElseGet(() -> detail(Response.Status.CONFLICT,
                            "X-Request-ID " + requestId + " was already used for a different action"));
        } catch (RuntimeException e) {
            return detail(Response.Status.INTERNAL_SERVER_ERROR, "Internal server error: " + e.getMessage());
        }
    }

    static Response detail(Response.Status status, String detail) {
        JsonValue body = Json.createObjectBuilder().add("detail", detail).build();
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body).build();
    }
}
