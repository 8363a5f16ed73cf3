package dev.dockyard.executor.api;

import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.protocol.JsonBytes;
import dev.dockyard.protocol.ProtocolJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code POST /execute_action}: {@code {"action": <action dict>}} in, observation dict out. With an
 * {@code X-Request-ID} header a retry returns the first answer instead of acting twice.
 *
 * <p>The body is taken and answered as bytes through {@link JsonBytes}: a file {@code write} or
 * {@code read} carries up to megabytes of text, which JSON-P's reader and generator would move
 * one character at a time.
 */
@Path("execute_action")
public class ActionResource {

    public static final String REQUEST_ID = "X-Request-ID";
    /** A larger announced length is not taken on trust for one allocation. */
    static final long PRESIZED_LIMIT = 64L * 1024 * 1024;

    private final ExecutorLifecycle lifecycle;

    ActionResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response execute(InputStream entity, @HeaderParam(HttpHeaders.CONTENT_LENGTH) long length,
                            @HeaderParam(REQUEST_ID) String requestId) throws IOException {
        if (!lifecycle.initialized()) {
            return detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        Action action;
        JsonObject request;
        try {
            byte[] body = read(entity, length);
            if (body == null || body.length == 0
                    || !(JsonBytes.read(body) instanceof JsonObject object)
                    || !(object.get("action") instanceof JsonObject dict)) {
                throw new InvalidActionException("The body must be {\"action\": {...}}");
            }
            request = object;
            action = ProtocolJson.actionFromJson(dict);
        } catch (InvalidActionException e) {
            return detail(Response.Status.BAD_REQUEST, e.getMessage());
        }
        try {
            Action toRun = action;
            if (requestId == null || requestId.isBlank()) {
                return Response.ok(JsonBytes.write(ProtocolJson.toJson(lifecycle.executor().execute(toRun))),
                        MediaType.APPLICATION_JSON_TYPE).build();
            }
            return lifecycle.requests().once(requestId, text(request),
                            () -> text(ProtocolJson.toJson(lifecycle.executor().execute(toRun))))
                    .map(answer -> Response.ok(answer, MediaType.APPLICATION_JSON_TYPE).build())
                    .orElseGet(() -> detail(Response.Status.CONFLICT,
                            "X-Request-ID " + requestId + " was already used for a different action"));
        } catch (RuntimeException e) {
            return detail(Response.Status.INTERNAL_SERVER_ERROR, "Internal server error: " + e.getMessage());
        } finally {
            // idle from the end of an action on: the heap a large one grew is given back after it
            lifecycle.served();
        }
    }

    /**
     * The body in one array of its announced length (one copy, no growing buffer); without a
     * length, or with one past {@link #PRESIZED_LIMIT}, as it comes.
     */
    private static byte[] read(InputStream entity, long length) throws IOException {
        if (entity == null) {
            return null;
        }
        if (length > 0 && length <= PRESIZED_LIMIT) {
            byte[] body = entity.readNBytes((int) length);
            if (body.length == length) {
                return body;
            }
            throw new InvalidActionException("The body ended after " + body.length + " of its " + length + " bytes");
        }
        return entity.readAllBytes();
    }

    private static String text(JsonObject json) {
        return new String(JsonBytes.write(json), StandardCharsets.UTF_8);
    }

    static Response detail(Response.Status status, String detail) {
        JsonValue body = Json.createObjectBuilder().add("detail", detail).build();
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body).build();
    }
}
