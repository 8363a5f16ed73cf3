package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.http.Header;
import dev.dockyard.persistence.DatabaseOutage;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The entrance of service URLs, on a listener of their own. Liberty listens on two ports: the API's
 * ({@code http.port}: API, console, Remote Runtime API) and the services' ({@code dockyard.proxy.port}).
 * What a sandbox serves is never served on the API's origin, where the console keeps its key: on the
 * API's port a runtime's path is answered 404 with where to go instead, and on the services' port
 * nothing but runtimes' services is served (404 for any other path). Two ways to name a runtime there:
 * path mode ({@code http://host:9081/rt-…/...}, the default: one origin for every runtime, so each
 * answer carries a Content-Security-Policy that puts the page in a sandbox of its own origin, see
 * {@link #DEFAULT_PATH_MODE_POLICY}) and subdomain mode ({@code http://rt-….domain:9081/...}, an origin
 * per runtime, {@link ServiceRoute#ofHost}).
 *
 * <p>A filter on every path rather than a servlet: servlet mappings cannot pick out
 * {@code /rt-<16 hex>/...}, and a catch-all servlet would take the default servlet's place. The filter
 * supports async so the JAX-RS resources behind it keep theirs. A runtime's request is admitted
 * ({@link Admission}) or refused with {@code {"detail": ...}}, then forwarded as HTTP
 * ({@link HttpForwarding}) or, for an upgrade request, tunnelled ({@link WebSocketTunnels}).
 */
@WebFilter(filterName = "DockyardServiceProxy", urlPatterns = "/*", asyncSupported = true)
public class ServiceProxyFilter extends HttpFilter {

    private static final Logger LOG = Logger.getLogger(ServiceProxyFilter.class.getName());

    /**
     * The policy path mode adds to every answer: the page runs in a sandbox with an origin of its
     * own (no {@code allow-same-origin}), so its scripts cannot read the answers of another
     * runtime's path on the shared origin, nor its cookies or storage. Scripts, forms, pop-ups and
     * downloads still work; what needs storage of its own (VS Code) wants subdomain mode.
     */
    public static final String DEFAULT_PATH_MODE_POLICY = "sandbox allow-scripts allow-forms allow-popups "
            + "allow-popups-to-escape-sandbox allow-modals allow-downloads";

    @Inject
    ProxyRuntimes runtimes;

    @Inject
    HttpForwarding http;

    @Inject
    WebSocketTunnels tunnels;

    /** Peers whose Forwarded and X-Forwarded-* headers reach the sandbox ({@link TrustedProxies}). */
    @Inject
    @ConfigProperty(name = "dockyard.proxy.trusted-proxies")
    Optional<List<String>> trustedProxySetting;

    /** Where the services' listener is (dockyard.proxy.port, server.xml's second httpEndpoint). */
    @Inject
    DockyardConfig config;

    /** Path mode's policy; {@code none} for none (an empty value reads as unset). */
    @Inject
    @ConfigProperty(name = "dockyard.proxy.content-security-policy", defaultValue = DEFAULT_PATH_MODE_POLICY)
    String pathModePolicy;

    private TrustedProxies trustedProxies = TrustedProxies.NONE;

    @PostConstruct
    void readSettings() {
        trustedProxies = TrustedProxies.of(trustedProxySetting == null ? List.of()
                : trustedProxySetting.orElse(List.of()));
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String uri = request.getRequestURI();
        String contextPath = request.getContextPath();
        String path = uri.startsWith(contextPath) ? uri.substring(contextPath.length()) : null;
        int proxyPort = config.proxyPort();
        if (request.getLocalPort() != proxyPort) {
            if (ServiceRoute.parse(path).isPresent()) {
                ProxyErrors.write(response, 404, "Runtime services are served on their own port (" + proxyPort
                        + "), never on the API's: use the url the API gives for the runtime");
                return;
            }
            chain.doFilter(request, response);
            return;
        }
        Optional<ServiceRoute> route = ServiceRoute.ofHost(request.getHeader("Host"), path)
                .or(() -> ServiceRoute.parse(path));
        String sandboxId = request.getHeader(EnvdAdmission.SANDBOX_ID);
        if (route.isEmpty() && (sandboxId != null || EnvdAdmission.isSignedFileUrl(path, request.getQueryString()))) {
            envd(request, response, EnvdAdmission.envdPath(path), sandboxId);
            return;
        }
        if (route.isEmpty()) {
            ProxyErrors.write(response, 404, "Not a runtime's service URL");
            return;
        }
        List<Header> headers = headers(request);
        Optional<Admission.Refused> early = refusedBeforeLookUp(headers);
        if (early.isPresent()) {
            ProxyErrors.write(response, early.get());
            return;
        }
        Optional<ProxyTarget> target;
        try {
            target = runtimes.find(route.get().runtimeId());
        } catch (RuntimeException e) {
            lookUpFailed(response, "runtime " + route.get().runtimeId(), e, false, "Runtime lookup failed");
            return;
        }
        boolean upgrade = isUpgrade(request);
        // the cookie signs in writes only from the runtime's own pages, where the origin is the runtime's own
        boolean cookieWrites = route.get().ownHost() && ProxyAuthentication.sentByOwnPage(request.getHeader("Origin"),
                request.getHeader("Sec-Fetch-Site"), request.getHeader("Host"));
        Admission admission = Admission.decide(target, route.get(), request.getMethod(),
                ProxyAuthentication.Presented.of(headers, request.getQueryString()), asksForUpgrade(headers),
                cookieWrites, upgrade && "websocket".equalsIgnoreCase(request.getHeader("Upgrade").strip()));
        if (admission instanceof Admission.Refused refused) {
            ProxyErrors.write(response, refused);
            return;
        }
        Admission.Admitted admitted = (Admission.Admitted) admission;
        if (upgrade && admitted.authenticatedBy().orElse(null) == ProxyAuthentication.Source.COOKIE
                && !ProxyAuthentication.fromOwnPages(request.getHeader("Origin"), request.getHeader("Host"))) {
            ProxyErrors.write(response, 403, "A connection signed in by the session cookie must come from the "
                    + "runtime's own pages: send the key in " + ProxyAuthentication.HEADER);
            return;
        }
        ProxyExchange exchange = new ProxyExchange(route.get(), admitted, headers, origin(request),
                policyFor(route.get()));
        if (upgrade) {
            tunnels.open(request, response, exchange);
        } else {
            http.forward(request, response, exchange);
        }
    }

    /**
     * A failed look-up, logged (a database outage once per half minute, anything else with its
     * trace) and answered ({@link ProxyErrors#lookUpFailed}).
     */
    private static void lookUpFailed(HttpServletResponse response, String what, RuntimeException e, boolean e2b,
                                     String detail) throws IOException {
        boolean outage = DatabaseOutage.causes(e);
        if (outage) {
            DatabaseOutage.note(e);
        } else {
            LOG.log(Level.WARNING, "Looking up " + what + " failed", e);
        }
        ProxyErrors.lookUpFailed(response, outage, e2b, detail);
    }

    /**
     * An E2B envd request ({@link EnvdAdmission}): admitted or refused in E2B's shape, then forwarded
     * as plain HTTP to the sandbox's main service with the path as it came. No content security
     * policy is added: envd serves no pages.
     */
    private void envd(HttpServletRequest request, HttpServletResponse response, String path, String sandboxId)
            throws IOException {
        List<Header> headers = headers(request);
        Optional<Admission.Refused> early = refusedBeforeLookUp(headers);
        if (early.isPresent()) {
            ProxyErrors.writeE2b(response, early.get(), sandboxId);
            return;
        }
        Optional<ProxyTarget> target;
        try {
            if (sandboxId != null) {
                target = EnvdAdmission.runtimeId(sandboxId).flatMap(runtimes::find);
            } else {
                // a signed file URL names no sandbox: the key its signature was made with does
                EnvdAdmission.Signature signature = EnvdAdmission.Signature.of(request.getQueryString());
                String operation = EnvdAdmission.operation(request.getMethod());
                Instant now = Instant.now();
                target = !EnvdAdmission.isWellFormed(signature) ? Optional.empty() : runtimes.findByKey(
                        key -> EnvdAdmission.checkSignature(signature, operation, key, now).isEmpty());
                if (target.isEmpty()) {
                    ProxyErrors.writeE2b(response, 401, null, "invalid signature");
                    return;
                }
            }
        } catch (RuntimeException e) {
            lookUpFailed(response, "sandbox " + sandboxId, e, true, "Sandbox lookup failed");
            return;
        }
        Admission admission = EnvdAdmission.decide(target, sandboxId, request.getHeader(EnvdAdmission.SANDBOX_PORT),
                request.getMethod(), path, request.getHeader(EnvdAdmission.ACCESS_TOKEN), request.getQueryString(),
                Instant.now());
        if (admission instanceof Admission.Refused refused) {
            ProxyErrors.writeE2b(response, refused, sandboxId);
            return;
        }
        ServiceRoute route = EnvdAdmission.route(target.orElseThrow().runtimeId(), path);
        http.forward(request, response, new ProxyExchange(route, (Admission.Admitted) admission, headers,
                origin(request), null, true));
    }

    /** What is refused before a runtime is looked up: no proxying here at all, or an ambiguous request. */
    private Optional<Admission.Refused> refusedBeforeLookUp(List<Header> headers) {
        if (!runtimes.available()) {
            return Optional.of(new Admission.Refused(503, "This control plane serves no service URLs"));
        }
        if (headers.stream().filter(h -> h.is("Content-Type")).count() > 1) {
            // which one the sandbox honours and which one anything before it checked need not agree
            return Optional.of(new Admission.Refused(400, "The request has more than one Content-Type header"));
        }
        return Optional.empty();
    }

    private ForwardedRequest.Origin origin(HttpServletRequest request) {
        return new ForwardedRequest.Origin(request.getRemoteAddr(), request.getScheme(), request.getHeader("Host"),
                request.getContextPath(), trustedProxies.trusts(request.getRemoteAddr()));
    }

    /** Path mode's policy (unless set to {@code none}); none in subdomain mode, where the origin is the runtime's. */
    private String policyFor(ServiceRoute route) {
        if (route.ownHost() || pathModePolicy == null || pathModePolicy.isBlank()
                || pathModePolicy.strip().equalsIgnoreCase("none")) {
            return null;
        }
        return pathModePolicy.strip();
    }

    /**
     * Whether the request offers any protocol but HTTP/2 ({@code h2c}) in an {@code Upgrade} header,
     * whatever else it says: such a request never passes as a keyless health probe, even when it
     * would not be tunnelled ({@link #isUpgrade}), so no reading of the upgrade rules opens a tunnel
     * to a health path without the key. (The one keyless tunnel is a WebSocket that signs in with
     * its first message, on the agent server's socket paths: see {@link Admission}.)
     */
    static boolean asksForUpgrade(List<Header> headers) {
        for (Header h : headers) {
            if (!h.is("Upgrade")) {
                continue;
            }
            for (String protocol : h.value().split(",")) {
                String p = protocol.trim().toLowerCase(Locale.ROOT);
                if (!p.isEmpty() && !p.startsWith("h2c")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * An upgrade request: {@code Upgrade} named in {@code Connection}, and no body (the body of an
     * upgrade request would belong to the old protocol; such a request is forwarded as plain HTTP).
     * An offer of HTTP/2 ({@code h2c}) is between the client and Liberty, never the sandbox's.
     */
    static boolean isUpgrade(HttpServletRequest request) {
        String upgrade = request.getHeader("Upgrade");
        String connection = request.getHeader("Connection");
        return upgrade != null && !upgrade.isBlank() && !upgrade.trim().toLowerCase(Locale.ROOT).startsWith("h2c")
                && connection != null
                && connection.toLowerCase(Locale.ROOT).contains("upgrade")
                && request.getContentLengthLong() <= 0 && request.getHeader("Transfer-Encoding") == null;
    }

    private static List<Header> headers(HttpServletRequest request) {
        List<Header> headers = new ArrayList<>();
        for (String name : Collections.list(request.getHeaderNames())) {
            for (String value : Collections.list(request.getHeaders(name))) {
                headers.add(new Header(name, value));
            }
        }
        return headers;
    }
}
