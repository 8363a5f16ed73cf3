package dev.dockyard.proxy;

import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The entrance of service URLs. A filter on every path rather than a servlet: servlet mappings cannot
 * pick out {@code /rt-<16 hex>/...}, and a catch-all servlet would take the default servlet's place.
 * Every path that is not a runtime's ({@link ServiceRoute}) goes down the chain untouched, and the
 * filter supports async so the JAX-RS resources behind it keep theirs. A runtime's path is answered
 * here: admitted ({@link Admission}) or refused with {@code {"detail": ...}}, then forwarded as HTTP
 * ({@link HttpForwarding}) or, for an upgrade request, tunnelled ({@link WebSocketTunnels}).
 */
@WebFilter(filterName = "DockyardServiceProxy", urlPatterns = "/*", asyncSupported = true)
public class ServiceProxyFilter extends HttpFilter {

    private static final Logger LOG = Logger.getLogger(ServiceProxyFilter.class.getName());

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
        Optional<ServiceRoute> route = uri.startsWith(contextPath)
                ? ServiceRoute.parse(uri.substring(contextPath.length())) : Optional.empty();
        if (route.isEmpty() || !runtimes.available()) {
            chain.doFilter(request, response);
            return;
        }
        List<Header> headers = headers(request);
        if (headers.stream().filter(h -> h.is("Content-Type")).count() > 1) {
            // which one the sandbox honours and which one anything before it checked need not agree
            ProxyErrors.write(response, 400, "The request has more than one Content-Type header");
            return;
        }
        Optional<ProxyTarget> target;
        try {
            target = runtimes.find(route.get().runtimeId());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Looking up runtime " + route.get().runtimeId() + " failed", e);
            ProxyErrors.write(response, 500, "Runtime lookup failed");
            return;
        }
        Admission admission = Admission.decide(target, route.get(), request.getMethod(),
                ProxyAuthentication.Presented.of(headers, request.getQueryString()), asksForUpgrade(headers));
        if (admission instanceof Admission.Refused refused) {
            ProxyErrors.write(response, refused.status(), refused.detail());
            return;
        }
        ProxyExchange exchange = new ProxyExchange(route.get(), (Admission.Admitted) admission, headers,
                new ForwardedRequest.Origin(request.getRemoteAddr(), request.getScheme(), request.getHeader("Host"),
                        contextPath, trustedProxies.trusts(request.getRemoteAddr())));
        if (isUpgrade(request)) {
            tunnels.open(request, response, exchange);
        } else {
            http.forward(request, response, exchange);
        }
    }

    /**
     * Whether the request offers any protocol but HTTP/2 ({@code h2c}) in an {@code Upgrade} header,
     * whatever else it says: such a request never passes as a keyless health probe, even when it
     * would not be tunnelled ({@link #isUpgrade}), so no reading of the upgrade rules opens a tunnel
     * without the key.
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
