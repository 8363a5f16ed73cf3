package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import dev.dockyard.http.ResponseHead;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Upgrade requests (WebSocket, or any other protocol a service agrees to): the proxy repeats the
 * handshake to the service on a socket of its own; if the service answers 101, the client's
 * connection is upgraded through the servlet container ({@link HttpServletRequest#upgrade}) and the
 * two are joined byte for byte ({@link WebSocketTunnel}); any other answer is relayed as an
 * ordinary response. Open tunnels are capped ({@code dockyard.proxy.max-tunnels}, one thread each;
 * more are a 503), and so are each runtime's and each user's ({@code .max-tunnels-per-runtime},
 * {@code .max-tunnels-per-user}; more are a 429, see {@link TunnelLimits}). All are closed when the
 * application stops.
 */
@ApplicationScoped
public class WebSocketTunnels {

    private static final Logger LOG = Logger.getLogger(WebSocketTunnels.class.getName());
    /** How long the service may take to answer the handshake; after it, the tunnel has no timeout. */
    private static final int HANDSHAKE_TIMEOUT_MILLIS = 30_000;
    /** How long a client that signs in with its first message has to send it (the agent server's own wait). */
    private static final long FIRST_MESSAGE_SECONDS = 10;
    /**
     * How many keyless tunnels may wait for their sign-in at once, per runtime and in all: what an
     * anonymous client can hold of the runtime's tunnel slots, for {@value #FIRST_MESSAGE_SECONDS} s.
     */
    static final int PENDING_PER_RUNTIME = 4;
    static final int PENDING_IN_ALL = 32;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.max-tunnels", defaultValue = "256")
    int maxTunnels;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.max-tunnels-per-runtime", defaultValue = "64")
    int maxTunnelsPerRuntime;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.max-tunnels-per-user", defaultValue = "128")
    int maxTunnelsPerUser;

    @Inject
    @ConfigProperty(name = "dockyard.proxy.connect-timeout", defaultValue = "5")
    int connectTimeoutSeconds;

    /** Threads that carry the application's context, so a traffic report may use JPA and the like. */
    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    ProxyRuntimes runtimes;

    private Semaphore slots;
    private TunnelLimits limits;
    private ExecutorService threads;
    private ScheduledExecutorService deadlines;
    private final Set<WebSocketTunnel> open = ConcurrentHashMap.newKeySet();
    private final TunnelLimits pending = new TunnelLimits(PENDING_PER_RUNTIME, PENDING_IN_ALL);

    @PostConstruct
    void start() {
        slots = new Semaphore(Math.max(1, maxTunnels));
        limits = new TunnelLimits(maxTunnelsPerRuntime, maxTunnelsPerUser);
        threads = Executors.newCachedThreadPool(threadFactory);
        deadlines = Executors.newSingleThreadScheduledExecutor(threadFactory);
    }

    /**
     * Ends every open session: each is told the server is going away and closes on its own thread;
     * whatever has not closed after a moment (a client that reads nothing) is closed outright.
     */
    @PreDestroy
    void stop() {
        open.forEach(t -> t.shutdown("Dockyard is stopping"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        open.forEach(WebSocketTunnel::forceClose);
        threads.shutdownNow();
        deadlines.shutdownNow();
    }

    /** Answers an admitted upgrade request: a tunnel after the service's 101, its answer otherwise. */
    public void open(HttpServletRequest request, HttpServletResponse response, ProxyExchange exchange)
            throws IOException {
        if (!slots.tryAcquire()) {
            ProxyErrors.write(response, 503, "Too many open WebSocket connections");
            return;
        }
        ProxyTarget target = exchange.target();
        boolean keyless = exchange.admitted().awaitsFirstMessage();
        // keyless tunnels are counted by runtime only ("" as their user): nobody is known yet
        if (keyless && pending.tryAcquire(target.runtimeId(), "").isPresent()) {
            slots.release();
            ProxyErrors.write(response, 429, "Too many connections waiting to sign in to this runtime");
            return;
        }
        Optional<String> overLimit = limits.tryAcquire(target.runtimeId(), target.userId());
        if (overLimit.isPresent()) {
            slots.release();
            if (keyless) {
                pending.release(target.runtimeId(), "");
            }
            ProxyErrors.write(response, 429, overLimit.get());
            return;
        }
        boolean handedOver = false;
        boolean connected = false;
        Socket socket = new Socket();
        try {
            URI service = exchange.admitted().service();
            int port = service.getPort() < 0 ? 80 : service.getPort();
            socket.connect(new InetSocketAddress(service.getHost(), port), connectTimeoutSeconds * 1000);
            connected = true;
            socket.setSoTimeout(HANDSHAKE_TIMEOUT_MILLIS);
            socket.setTcpNoDelay(true); // frames are small and interactive
            socket.setKeepAlive(true);
            OutputStream toService = socket.getOutputStream();
            List<Header> forwarded = exchange.forwardedHeaders(true);
            if (keyless) {
                // no extension: a compressed sign-in message could be neither read nor rewritten
                forwarded = forwarded.stream().filter(h -> !h.is("Sec-WebSocket-Extensions")).toList();
            }
            toService.write(UpgradeHandshake.requestHead(request.getMethod(),
                    exchange.forwardedPathAndQuery(request.getQueryString()), service.getHost() + ":" + port,
                    forwarded));
            toService.flush();
            InputStream fromService = new BufferedInputStream(socket.getInputStream(), Pump.BUFFER);
            ResponseHead head = UpgradeHandshake.readHead(fromService);
            boolean websocket = "websocket".equalsIgnoreCase(head.header("Upgrade").orElse(""));
            if (keyless && (head.status() != HttpServletResponse.SC_SWITCHING_PROTOCOLS || !websocket)) {
                // nothing of the service's answers a client that has not signed in
                ProxyErrors.write(response, 401, "Invalid or missing session API key");
                return;
            }
            if (head.status() != HttpServletResponse.SC_SWITCHING_PROTOCOLS) {
                relay(request, response, exchange, head, fromService);
                return;
            }
            socket.setSoTimeout(0); // a WebSocket may stay quiet for as long as it likes
            response.setStatus(HttpServletResponse.SC_SWITCHING_PROTOCOLS);
            for (Header h : exchange.responseHeaders(head.headers())) {
                response.addHeader(h.name(), h.value());
            }
            response.setHeader("Upgrade", head.header("Upgrade").orElse(request.getHeader("Upgrade")));
            response.setHeader("Connection", "Upgrade");
            String cookie = exchange.proxyCookie(request.isSecure());
            if (cookie != null) {
                response.addHeader("Set-Cookie", cookie);
            }
            TunnelHandler handler = request.upgrade(TunnelHandler.class);
            WebSocketTunnel tunnel = new WebSocketTunnel(exchange, socket, fromService, websocket, this::ended,
                    () -> pending.release(target.runtimeId(), ""));
            open.add(tunnel);
            handler.attach(tunnel, threads);
            handedOver = true;
            if (tunnel.awaitsFirstMessage()) {
                // a keyless client holds a slot of the runtime's only until then
                deadlines.schedule(tunnel::refuseSignIn, FIRST_MESSAGE_SECONDS, TimeUnit.SECONDS);
            }
        } catch (SocketTimeoutException e) {
            if (connected) {
                ProxyErrors.write(response, 504, "Runtime service " + exchange.route().service() + " did not answer in time");
            } else {
                ProxyErrors.write(response, exchange, runtimes.unreachable(exchange));
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "Tunnel to {0}/{1} failed: {2}", new Object[] {exchange.route().runtimeId(),
                    exchange.route().service(), e.getClass().getName()});
            if (connected) {
                ProxyErrors.write(response, exchange, runtimes.dropped(exchange));
            } else {
                ProxyErrors.write(response, exchange, runtimes.unreachable(exchange));
            }
        } catch (ServletException e) {
            LOG.log(Level.WARNING, "The container refused to upgrade a connection", e);
            ProxyErrors.write(response, 500, "The connection could not be upgraded");
        } finally {
            if (!handedOver) {
                socket.close();
                release(target);
                if (keyless) {
                    pending.release(target.runtimeId(), "");
                }
            }
        }
    }

    /** The service refused the upgrade: its answer goes to the client like any response. */
    private void relay(HttpServletRequest request, HttpServletResponse response, ProxyExchange exchange,
                       ResponseHead head, InputStream fromService) throws IOException {
        response.setStatus(head.status());
        for (Header h : exchange.responseHeaders(head.headers())) {
            if (!h.is("Content-Length")) {
                response.addHeader(h.name(), h.value());
            }
        }
        long out = 0;
        try (InputStream body = UpgradeHandshake.body(head, fromService)) {
            out = Pump.copy(body, response.getOutputStream());
        } catch (Pump.Failure e) {
            out = e.copied();
        } finally {
            runtimes.traffic(exchange, false, 0, out);
        }
    }

    private void release(ProxyTarget target) {
        limits.release(target.runtimeId(), target.userId());
        slots.release();
    }

    private void ended(WebSocketTunnel tunnel) {
        if (open.remove(tunnel)) {
            release(tunnel.exchange().target());
        }
        if (tunnel.signedIn()) {
            // a client that never signed in is nobody's traffic, and keeps no runtime awake
            runtimes.traffic(tunnel.exchange(), true, tunnel.bytesIn(), tunnel.bytesOut());
        }
    }
}
