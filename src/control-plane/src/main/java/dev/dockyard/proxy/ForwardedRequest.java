package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The request a sandbox's service sees, built from the client's: the sandbox only knows the
 * runtime's internal key, so the client's public key is never passed on and the internal one takes
 * its place, in the header always and, for VS Code (which checks its connection token itself), in
 * {@code ?tkn=} and its {@code vscode-tkn} cookie too. The proxy's own cookie, Dockyard's
 * {@code X-API-Key}, E2B's {@code X-Access-Token} (the public key under E2B's name) and hop-by-hop
 * headers stay behind; {@code X-Forwarded-*} say where the request
 * came from and under which prefix the service is public. What the client said about where the
 * request came from ({@code Forwarded}, {@code X-Forwarded-*}, {@code X-Real-IP}) is passed on only
 * when the client is a trusted proxy ({@link TrustedProxies}); from anyone else it is dropped.
 */
public final class ForwardedRequest {

    /** VS Code's own cookie holding its connection token (set by VS Code, seen through the proxy). */
    public static final String VSCODE_COOKIE = "vscode-tkn";

    /**
     * Headers the proxy drops or sets itself: besides hop-by-hop ones, the length (the HTTP client
     * frames the body), Expect (the container has answered it already) and the keys.
     */
    private static final Set<String> REPLACED = names("content-length", "expect", "x-api-key",
            ProxyAuthentication.HEADER, EnvdAdmission.ACCESS_TOKEN, "cookie", "x-forwarded-for", "x-forwarded-proto",
            "x-forwarded-host", "x-forwarded-prefix");

    /**
     * Where the client's request came in.
     *
     * @param clientAddress the client's IP address
     * @param scheme        http or https, as the client reached Dockyard
     * @param host          the client's Host header, or null
     * @param contextPath   Dockyard's context path ("" at the root)
     * @param trustedProxy  whether the client is a proxy whose forwarding headers are passed on
     */
    public record Origin(String clientAddress, String scheme, String host, String contextPath,
                         boolean trustedProxy) {

        /** A client that is no trusted proxy. */
        public Origin(String clientAddress, String scheme, String host, String contextPath) {
            this(clientAddress, scheme, host, contextPath, false);
        }
    }

    private ForwardedRequest() {
    }

    /**
     * The headers to send the service. For an upgrade (WebSocket) the {@code Upgrade} header and
     * {@code Connection: Upgrade} stay, since the sandbox has to see the handshake.
     */
    public static List<Header> headers(List<Header> incoming, ServiceRoute route, ProxyTarget target,
                                       boolean authenticated, Origin origin, boolean upgrade) {
        Set<String> connectionNamed = HopByHop.of(incoming);
        List<Header> out = new ArrayList<>();
        List<String> forwardedFor = new ArrayList<>();
        for (Header h : incoming) {
            if (!origin.trustedProxy() && isForwarding(h.name())) {
                continue; // the client's say about where it came from
            }
            if (h.is("X-Forwarded-For")) {
                forwardedFor.add(h.value());
            }
            if (REPLACED.contains(h.name()) || HopByHop.isFixed(h.name()) || connectionNamed.contains(h.name())) {
                continue;
            }
            out.add(h);
        }
        if (upgrade) {
            incoming.stream().filter(h -> h.is("Upgrade")).findFirst().ifPresent(out::add);
            out.add(new Header("Connection", "Upgrade"));
        }
        if (authenticated) {
            out.add(new Header(ProxyAuthentication.HEADER, target.internalKey()));
        }
        cookie(incoming, route, target).ifPresent(c -> out.add(new Header("Cookie", c)));
        forwardedFor.add(origin.clientAddress());
        out.add(new Header("X-Forwarded-For", String.join(", ", forwardedFor)));
        out.add(new Header("X-Forwarded-Proto", origin.scheme()));
        if (origin.host() != null) {
            out.add(new Header("X-Forwarded-Host", origin.host()));
        }
        String prefix = origin.contextPath() + route.prefix();
        if (!prefix.isEmpty()) {
            out.add(new Header("X-Forwarded-Prefix", prefix));
        }
        return out;
    }

    /**
     * The query to send the service: {@code tkn} rewritten for VS Code, removed for the others; the
     * agent server's {@code session_api_key} holding the public key rewritten everywhere (the
     * sandbox knows the internal key, never the public one; any other value stays: the service
     * refuses it).
     */
    public static String query(String rawQuery, ServiceRoute route, ProxyTarget target) {
        String query = route.service().equals(ProxyTarget.VSCODE)
                ? QueryString.replace(rawQuery, ProxyAuthentication.QUERY, target.publicKey(), target.internalKey())
                : QueryString.without(rawQuery, ProxyAuthentication.QUERY);
        return QueryString.replace(query, ProxyAuthentication.AGENT_QUERY, target.publicKey(), target.internalKey());
    }

    private static Optional<String> cookie(List<Header> incoming, ServiceRoute route, ProxyTarget target) {
        boolean vscode = route.service().equals(ProxyTarget.VSCODE);
        return Cookies.rewrite(Cookies.parse(incoming), pair -> {
            if (pair.name().equals(ProxyAuthentication.COOKIE)) {
                return null;
            }
            if (vscode && pair.name().equals(VSCODE_COOKIE)
                    && ProxyAuthentication.matches(pair.unquoted(), target.publicKey())) {
                return new Cookies.Pair(pair.name(), target.internalKey());
            }
            return pair;
        });
    }

    /** A header that tells where a request came from, which only a trusted proxy may say. */
    static boolean isForwarding(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.equals("forwarded") || lower.startsWith("x-forwarded-") || lower.equals("x-real-ip");
    }

    private static Set<String> names(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(List.of(names));
        return set;
    }
}
