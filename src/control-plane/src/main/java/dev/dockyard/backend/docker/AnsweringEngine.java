package dev.dockyard.backend.docker;

import com.github.dockerjava.transport.DockerHttpClient;
import dev.dockyard.backend.EngineUnreachableException;
import java.io.IOException;
import java.net.SocketTimeoutException;

/**
 * The Docker transport, telling an engine that does not answer from one that answered with an error.
 * docker-java raises a refused or broken connection (the engine restarting or stopped: the unix
 * socket gone, a broken pipe) as a bare {@code RuntimeException} around the {@code IOException},
 * which no caller recognises; here it becomes an {@link EngineUnreachableException}, a
 * {@code BackendException} every caller already handles, which the API answers with 503 and
 * {@code Retry-After}. A timeout stays what it was: a slow engine is not a gone one.
 */
final class AnsweringEngine implements DockerHttpClient {

    private final DockerHttpClient transport;
    private final String endpoint;

    AnsweringEngine(DockerHttpClient transport, String endpoint) {
        this.transport = transport;
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
            throw new EngineUnreachableException("the Docker engine at " + endpoint + " does not answer ("
                    + unanswered.getClass().getSimpleName() + ": " + unanswered.getMessage() + ")", e);
        }
    }

    /** The connection failure under {@code e}, or null when it is something else (a timeout included). */
    static IOException connectionFailure(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return null;
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
