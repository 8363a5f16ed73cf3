package dev.dockyard.executor.api;

import dev.dockyard.executor.Reply;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

/** The executor core's answers as JAX-RS responses. */
final class Replies {

    private Replies() {
    }

    static Response of(Reply reply) {
        Object entity = reply.body() instanceof Reply.Streamed streamed ? (StreamingOutput) streamed::writeTo
                : reply.body();
        Response.ResponseBuilder response = Response.status(reply.status()).entity(entity);
        if (reply.contentType() != null) {
            response.type(reply.contentType());
        }
        reply.headers().forEach(response::header);
        return response.build();
    }
}
