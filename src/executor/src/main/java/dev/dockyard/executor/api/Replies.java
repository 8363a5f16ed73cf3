package dev.dockyard.executor.api;

import dev.dockyard.executor.Reply;
import dev.dockyard.protocol.JsonBytes;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

/**
 * The executor core's answers as JAX-RS responses. JSON values are streamed by {@link JsonBytes}
 * (in 32 KB pieces; Liberty still answers a short one with its length): a file's text read whole
 * goes from its own bytes to the connection, where JSON-P's provider would write it a character
 * at a time through a String.
 */
final class Replies {

    private Replies() {
    }

    static Response of(Reply reply) {
        Object entity = reply.body();
        if (entity instanceof Reply.Streamed streamed) {
            entity = (StreamingOutput) streamed::writeTo;
        } else if (entity instanceof JsonValue json) {
            entity = (StreamingOutput) out -> JsonBytes.write(json, out);
        }
        Response.ResponseBuilder response = Response.status(reply.status()).entity(entity);
        if (reply.contentType() != null) {
            response.type(reply.contentType());
        }
        reply.headers().forEach(response::header);
        return response.build();
    }
}
