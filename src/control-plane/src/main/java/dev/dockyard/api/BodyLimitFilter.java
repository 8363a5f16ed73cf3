package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Bounds every request body but uploads to {@code dockyard.api.max-body-bytes}, whatever reads it
 * (the JSON reader, a resource taking the body as a string): a declared Content-Length over the
 * limit is a 413 before a byte is read, and a chunked body is cut off with the same 413 once it
 * passes the limit. Multipart uploads (files, build contexts) are streamed by their own readers
 * and are not bounded here.
 */
@Provider
@PreMatching
public class BodyLimitFilter implements ContainerRequestFilter {

    @Inject
    InputLimits limits;

    @Override
    public void filter(ContainerRequestContext request) {
        MediaType type = request.getMediaType();
        if (type != null && "multipart".equalsIgnoreCase(type.getType())) {
            return;
        }
        int max = limits.maxBodyBytes();
        // the length Liberty's HTTP channel read and checked (-1 when chunked or unknown); the raw
        // header is not parsed here: over HTTP/2 it can arrive as a list ("33,33")
        if (request.getLength() > max) {
            request.abortWith(tooLarge(max).toResponse());
            return;
        }
        request.setEntityStream(new Bounded(request.getEntityStream(), max));
    }

    static Problem tooLarge(int max) {
        return Problem.of(Problem.Kind.PAYLOAD_TOO_LARGE, "The body is larger than " + max + " bytes "
                + "(dockyard.api.max-body-bytes)").with("maxBytes", Jsonp.createValue(max));
    }

    /**
     * Reads on until {@code max} bytes have passed, then refuses; a body the transport cannot read
     * (a malformed chunk length, a connection cut short) is the caller's 400, not a failure here.
     */
    static final class Bounded extends FilterInputStream {
        private final int max;
        private long seen;

        Bounded(InputStream in, int max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b;
            try {
                b = super.read();
            } catch (IOException e) {
                throw unreadable();
            }
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n;
            try {
                n = super.read(buffer, offset, length);
            } catch (IOException e) {
                throw unreadable();
            }
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private static Problem.ProblemException unreadable() {
            return Problem.of(Problem.Kind.BAD_REQUEST, "The body could not be read: malformed chunked encoding "
                    + "or a connection cut short").toException();
        }

        private void count(int n) {
            seen += n;
            if (seen > max) {
                throw tooLarge(max).toException();
            }
        }
    }
}
