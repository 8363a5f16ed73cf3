package dev.dockyard.proxy;

import dev.dockyard.http.Header;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Plain HTTP to a service: the request streamed to the sandbox as the client sends it, the response
 * streamed back as the sandbox produces it (event streams included), neither held whole. One HTTP/1.1
 * client with a connection pool serves every runtime; redirects are passed to the client, not
 * followed. The wait for the response head is bounded ({@code dockyard.proxy.response-timeout},
 * longer than the longest action), the body is not: a stream may run for as long as both sides keep
 * it open.
 */
@ApplicationScoped
public class HttpForwarding {

    private static final Logger LOG = Logger.getLogger(HttpForwarding.class.getName());

    @Inject
    @ConfigProperty(name = "dockyard.proxy.connect-timeout", defaultValue = "5")
    int connectTimeoutSeconds;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.response-timeout", defaultValue = "3900")
    int responseTimeoutSeconds;

    @Inject
    ProxyRuntimes runtimes;

    private HttpClient client;

    @PostConstruct
    void start() {
        client = newClient(Duration.ofSeconds(connectTimeoutSeconds));
    }

    /**
     * The proxy's client. Its pool closes a connection idle for {@code jdk.httpclient.keepalive.timeout}
     * seconds, which the server's jvm.options sets well below the executors' own idle limit (30 s):
     * were both to close the same connection at the same moment, a request sent on it as the
     * executor closed it would be dropped unanswered, and a POST is never sent twice.
     */
    static HttpClient newClient(Duration connectTimeout) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout).build();
    }

    /**
     * Sends the request to its service and relays the answer, or answers with a 502 or 504 (a 503
     * when the main service refuses the connection: {@link ProxyRuntimes#unreachable}).
     */
    public void forward(HttpServletRequest request, HttpServletResponse response, ProxyExchange exchange)
            throws IOException {
        URI target;
        try {
            target = exchange.serviceUri(request.getQueryString());
        } catch (IllegalArgumentException e) {
            ProxyErrors.write(response, 400, "Malformed path or query"); // characters no URI may hold
            return;
        }
        ByteCounter body = new ByteCounter(request.getInputStream());
        String service = "Runtime service " + exchange.route().service();
        HttpRequest.Builder outgoing = HttpRequest.newBuilder(target)
                .timeout(Duration.ofSeconds(responseTimeoutSeconds))
                .method(request.getMethod(), publisher(request, body));
        for (Header h : exchange.forwardedHeaders(false)) {
            try {
                outgoing.header(h.name(), h.value());
            } catch (IllegalArgumentException e) {
                // a name the client library does not let callers set: it writes that one itself
                LOG.log(Level.FINE, "Not forwarding header {0}", h.name());
            }
        }
        HttpResponse<InputStream> answer;
        try {
            answer = client.send(outgoing.build(), BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException | ConnectException e) {
            failed(response, exchange, body.count(), runtimes.unreachable(exchange));
            return;
        } catch (HttpTimeoutException e) {
            failed(response, exchange, body.count(), 504, service + " did not answer in time");
            return;
        } catch (IOException e) {
            // never the exception's message: it may quote the URI, whose query may hold a key
            LOG.log(Level.FINE, "Proxy to {0}/{1} failed: {2}", new Object[] {exchange.route().runtimeId(),
                    exchange.route().service(), e.getClass().getName()});
            // taken, then dropped: a 502 unless the sandbox is found stopped (ProxyRuntimes#dropped)
            failed(response, exchange, body.count(), runtimes.dropped(exchange));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed(response, exchange, body.count(), 502, "Interrupted");
            return;
        }
        long out = 0;
        try (InputStream in = answer.body()) {
            if (ForwardedResponse.bodyCarriesKey(exchange.route(), request.getMethod(), answer.statusCode())) {
                out = respondRewritten(request, response, exchange, answer, in);
                return;
            }
            respond(request, response, exchange, answer, true);
            // the head goes out now, as the sandbox sent it: Liberty holds back a first small flush
            // until the response ends (to frame it with a length), which would stall an event
            // stream whose first event is small; once committed, every flush goes out at once
            response.flushBuffer();
            out = Pump.copy(in, flushing(response));
        } catch (Pump.Failure e) {
            // the client went away or the sandbox cut its answer short: the status is out, so all
            // that is left is to stop (closing the body drops the sandbox connection)
            out = e.copied();
            LOG.log(Level.FINE, "Proxied response from {0}/{1} cut short ({2})", new Object[] {
                    exchange.route().runtimeId(), exchange.route().service(), e.reading() ? "sandbox" : "client"});
        } finally {
            runtimes.traffic(exchange, false, body.count(), out);
        }
    }

    /** The response body stream, whose flush is the response's: what was written goes to the client now. */
    private static OutputStream flushing(HttpServletResponse response) throws IOException {
        OutputStream body = response.getOutputStream();
        return new FilterOutputStream(body) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                body.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                response.flushBuffer();
            }
        };
    }

    private void failed(HttpServletResponse response, ProxyExchange exchange, long in, int status, String detail)
            throws IOException {
        failed(response, exchange, in, new Admission.Refused(status, detail));
    }

    private void failed(HttpServletResponse response, ProxyExchange exchange, long in, Admission.Refused refused)
            throws IOException {
        runtimes.traffic(exchange, false, in, 0);
        ProxyErrors.write(response, exchange, refused);
    }

    /** The small answer that carries the internal key, read whole and given with the public key instead. */
    private static long respondRewritten(HttpServletRequest request, HttpServletResponse response,
                                         ProxyExchange exchange, HttpResponse<InputStream> answer, InputStream in)
            throws IOException {
        byte[] body;
        try {
            body = in.readNBytes(ForwardedResponse.MAX_REWRITTEN_BODY + 1);
        } catch (IOException e) {
            ProxyErrors.write(response, 502, "Runtime service failed");
            return 0;
        }
        if (body.length > ForwardedResponse.MAX_REWRITTEN_BODY) {
            // not the small token answer it should be: never pass part of it on, rewritten or not
            ProxyErrors.write(response, 502, "Runtime service answered with an unexpected body");
            return body.length;
        }
        byte[] rewritten = ForwardedResponse.bodyWithoutInternalKey(body, exchange.target());
        respond(request, response, exchange, answer, false);
        response.setContentLength(rewritten.length);
        try {
            response.getOutputStream().write(rewritten);
        } catch (IOException e) {
            throw new Pump.Failure(false, 0, e);
        }
        return body.length;
    }

    private static void respond(HttpServletRequest request, HttpServletResponse response, ProxyExchange exchange,
                                HttpResponse<InputStream> answer, boolean withLength) {
        response.setStatus(answer.statusCode());
        List<Header> fromService = new ArrayList<>();
        answer.headers().map().forEach((name, values) -> values.forEach(v -> fromService.add(new Header(name, v))));
        for (Header h : exchange.responseHeaders(fromService)) {
            if (h.is("Content-Length")) {
                if (!withLength) {
                    continue;
                }
                try {
                    response.setContentLengthLong(Long.parseLong(h.value().trim()));
                } catch (NumberFormatException e) {
                    // a length that is no number: leave the framing to the container
                }
            } else {
                response.addHeader(h.name(), h.value());
            }
        }
        String cookie = exchange.proxyCookie(request.isSecure());
        if (cookie != null) {
            response.addHeader("Set-Cookie", cookie);
        }
    }

    /**
     * The request body as the client sends it: with its length when the client gave one (the
     * sandbox sees the same framing), chunked when it streams, none when it has none.
     */
    private static BodyPublisher publisher(HttpServletRequest request, ByteCounter body) {
        long length = request.getContentLengthLong();
        if (length > 0) {
            return BodyPublishers.fromPublisher(BodyPublishers.ofInputStream(() -> body), length);
        }
        if (length < 0 && request.getHeader("Transfer-Encoding") != null) {
            return BodyPublishers.ofInputStream(() -> body);
        }
        return BodyPublishers.noBody();
    }
}
