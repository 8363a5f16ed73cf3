package dev.dockyard.backend.docker;

import com.github.dockerjava.transport.DockerHttpClient;
import dev.dockyard.backend.EngineUnreachableException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.logging.Logger;

/**
 * The Docker transport, telling an engine that does not answer from one that answered with an error.
 * docker-java raises a refused or broken connection (the engine restarting or stopped: the unix
 * socket gone, a broken pipe; a TCP engine's host down: the connect timing out) as a bare
 * {@code RuntimeException} around the {@code IOException}, which no caller recognises; here it
 * becomes an {@link EngineUnreachableException}, a {@code BackendException} every caller already
 * handles, which the API answers with 503 and {@code Retry-After}. A response that is slow to come
 * stays what it was: a slow engine is not a gone one, and neither is a full connection pool or an
 * interrupted thread. The answer names the node, never its endpoint (a socket path or an address);
 * the log has that.
 */
final class AnsweringEngine implements DockerHttpClient {

    private static final Logger LOG = Logger.getLogger(AnsweringEngine.class.getName());

    private final DockerHttpClient transport;
    private final String node;
    private final String endpoint;

    AnsweringEngine(DockerHttpClient transport, String node, String endpoint) {
        this.transport = transport;
        this.node = node;
        this.endpoint = endpoint;
    }

    @Override
    public Response execute(Request request) {
        try {
            return transport.execute(request);
        } catch (RuntimeException e) {
            IOException unanswered = connectionFailure(e);
            if (unanswered == null) {
                throw e;
            }
            LOG.warning("The Docker engine of node '" + node + "' at " + endpoint + " does not answer: " + unanswered);
            // the engine may have acted on a request whose answer was lost (a broken pipe): the
            // caller's record stands, and the reconciler compares once the engine answers again
            throw new EngineUnreachableException("the Docker engine of node '" + node + "' does not answer ("
                    + unanswered.getClass().getSimpleName() + ")", e);
        }
    }

    /**
     * The connection failure under {@code e}, or null when it is something else: a response that
     * timed out, a wait for a pooled connection, an interrupt (each an {@code InterruptedIOException}),
     * except a connect that timed out, which is an engine not there.
     */
    static IOException connectionFailure(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedIOException timeout) {
                return timeout.getClass().getSimpleName().equals("ConnectTimeoutException") ? timeout : null;
            }
            if (cause instanceof IOException io) {
                return io;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        transport.close();
    }
}
