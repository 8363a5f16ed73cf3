package dev.dockyard.executor.api;

import dev.dockyard.executor.ExecutorRequests;
import dev.dockyard.executor.Reply;
import dev.dockyard.protocol.InvalidActionException;
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

/**
 * {@code POST /execute_action} (PROTOCOL.md): the body read as bytes in one array of its announced
 * length and handed to the executor core, which parses and answers it as bytes ({@code JsonBytes}):
 * a 1 MB file's content is copied as few times as possible.
 */
@Path("execute_action")
public class ActionResource {

    public static final String REQUEST_ID = ExecutorRequests.REQUEST_ID_HEADER;
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
        try {
            return Replies.of(lifecycle.requests().execute(read(entity, length), requestId));
        } catch (InvalidActionException e) {
            return Replies.of(Reply.detail(400, e.getMessage()));
        } finally {
            // idle from the end of an action on: the heap a large one grew is given back after it
            lifecycle.served();
        }
    }

    /**
     * The body read straight into one array of its announced length (one copy; {@code
     * readNBytes(int)} would gather it in 16 KB pieces and copy them once more); without a length,
     * or with one past {@link #PRESIZED_LIMIT}, as it comes.
     */
    private static byte[] read(InputStream entity, long length) throws IOException {
        if (entity == null) {
            return null;
        }
        if (length > 0 && length <= PRESIZED_LIMIT) {
            byte[] body = new byte[(int) length];
            int n = entity.readNBytes(body, 0, body.length);
            if (n == length) {
                return body;
            }
            throw new InvalidActionException("The body ended after " + n + " of its " + length + " bytes");
        }
        return entity.readAllBytes();
    }
}
