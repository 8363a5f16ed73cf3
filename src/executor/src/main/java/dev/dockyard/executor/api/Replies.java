package dev.dockyard.executor.api;

import dev.dockyard.executor.Reply;
import dev.dockyard.protocol.JsonBytes;
import jakarta.json.JsonValue;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

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
        return of(reply, null);
    }

    /**
     * As {@link #of(Reply)}; a streamed answer's every flush goes to the client at once through
     * {@code servlet}: Liberty holds a first small flush of a JAX-RS entity back, which would keep
     * an envd stream's first event (a process's {@code start}) from its client until more follows.
     */
    static Response of(Reply reply, HttpServletResponse servlet) {
        Object entity = reply.body();
        if (entity instanceof Reply.Streamed streamed) {
            entity = (StreamingOutput) out -> streamed.writeTo(servlet == null ? out : new Flushing(out, servlet));
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

    /** An entity's stream whose flush is the servlet response's: what was written goes out now. */
    private static final class Flushing extends FilterOutputStream {

        private final HttpServletResponse servlet;

        Flushing(OutputStream out, HttpServletResponse servlet) {
            super(out);
            this.servlet = servlet;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
            servlet.flushBuffer();
        }
    }
}
