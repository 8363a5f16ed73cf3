package dev.dockyard.transport;

import com.ibm.wsspi.http.HttpContainer;
import com.ibm.wsspi.http.HttpInboundConnection;
import com.ibm.wsspi.http.HttpOutputStream;
import com.ibm.wsspi.http.HttpRequest;
import com.ibm.wsspi.http.HttpResponse;
import com.ibm.wsspi.http.VirtualHost;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Answers with a 400 problem the request paths the web container would refuse with its own HTML
 * page ({@link PathRefusals}), and the requests whose body framing is ambiguous, which the HTTP
 * channel would read one way and a proxy in front perhaps another ({@link FramingRefusals}; the
 * connection is closed after the answer, its unread body belonging to no request); every other
 * request is left to the web container.
 *
 * <p>Liberty's supported SPI ({@code com.ibm.wsspi.http}): a container added to the default_host
 * virtual host is asked, in the order containers were added, whether it takes each request
 * ({@code VirtualHostImpl.discriminate}); the first that returns a handler has it. The web
 * container takes every request for an application at "/", and refuses a malformed path only
 * inside its handler, so this container must come first: it is added when default_host appears,
 * which is before applications start. No API states that order; the feature's integration test
 * ({@code TransportProblemsIT}) checks it on a real server.
 */
public class MalformedPathContainer implements HttpContainer {

    private static final Logger LOG = Logger.getLogger(MalformedPathContainer.class.getName());
    private static final String CONTEXT_ROOT = "/";

    private volatile VirtualHost virtualHost;

    protected void setVirtualHost(VirtualHost host) {
        this.virtualHost = host;
    }

    protected void unsetVirtualHost(VirtualHost host) {
        if (virtualHost == host) {
            virtualHost = null;
        }
    }

    protected void activate() {
        virtualHost.addContextRoot(CONTEXT_ROOT, this);
    }

    protected void deactivate() {
        VirtualHost host = virtualHost;
        if (host != null) {
            host.removeContextRoot(CONTEXT_ROOT, this);
        }
    }

    @Override
    public Runnable createRunnableHandler(HttpInboundConnection connection) {
        HttpRequest request = connection.getRequest();
        String framing = FramingRefusals.refusal(request.getVersion(), request::getHeaders);
        if (framing != null) {
            TransportProblem problem = TransportProblem.badFraming(framing);
            return () -> answer(connection, problem, true);
        }
        String path = request.getURI();
        String refusal = path == null ? null : PathRefusals.refusal(path);
        if (refusal == null) {
            return null;
        }
        TransportProblem problem = TransportProblem.badPath(refusal);
        return () -> answer(connection, problem, false);
    }

    private static void answer(HttpInboundConnection connection, TransportProblem problem, boolean close) {
        byte[] body = problem.jsonBytes();
        Exception failure = null;
        try {
            HttpResponse response = connection.getResponse();
            response.setStatus(problem.status());
            response.setReason("Bad Request");
            response.setHeader("Content-Type", TransportProblem.MEDIA_TYPE);
            if (close) {
                response.setHeader("Connection", "close");
            }
            response.setContentLength(body.length);
            try (HttpOutputStream out = response.getBody()) {
                out.write(body);
            }
        } catch (IOException | RuntimeException e) {
            // the client went away, or the transport failed: nothing left to answer, the transport cleans up
            LOG.log(Level.FINE, "could not answer a malformed path", e);
            failure = e;
        }
        connection.finish(failure);
    }
}
