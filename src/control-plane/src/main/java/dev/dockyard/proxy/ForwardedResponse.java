package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The response headers a client sees, built from the service's: hop-by-hop headers stay behind, a
 * redirect to the sandbox's own address becomes one to the service's public prefix, and the
 * internal key never leaves: wherever a header carries it (VS Code's {@code vscode-tkn} cookie, a
 * redirect with {@code ?tkn=}), the public key takes its place, so the browser holds the key the
 * proxy knows and the proxy swaps it back on the way in.
 */
public final class ForwardedResponse {

    private ForwardedResponse() {
    }

    /**
     * The service's headers as the client gets them. Besides the rewriting above: every cookie the
     * service sets stays within the runtime ({@link #scopedCookie}); the browser never guesses a type
     * the service did not name ({@code X-Content-Type-Options: nosniff}, the service's own value
     * replaced); and the proxy's Content-Security-Policy, when there is one, is added beside any the
     * service sends (a browser enforces every policy it is given, so a service cannot lift it).
     *
     * @param service               the service's address (where the proxy sent the request)
     * @param publicRoot            the service's public root path: context path and the stripped prefix
     * @param cookieRoot            the path every cookie of the runtime must stay under
     * @param contentSecurityPolicy the proxy's policy for what it serves, or null (or blank) for none
     */
    public static List<Header> headers(List<Header> fromService, ProxyTarget target, URI service, String publicRoot,
                                       String cookieRoot, String contentSecurityPolicy) {
        List<Header> out = new ArrayList<>();
        for (Header h : HopByHop.strip(fromService)) {
            if (h.is(NOSNIFF.name())) {
                continue;
            }
            String value = h.is("Location") ? location(h.value(), service, publicRoot) : h.value();
            if (h.is("Set-Cookie")) {
                value = scopedCookie(value, cookieRoot);
                if (value == null) {
                    continue;
                }
            }
            out.add(new Header(h.name(), withoutInternalKey(value, target)));
        }
        out.add(NOSNIFF);
        if (contentSecurityPolicy != null && !contentSecurityPolicy.isBlank()) {
            out.add(new Header("Content-Security-Policy", contentSecurityPolicy.strip()));
        }
        return out;
    }

    private static final Header NOSNIFF = new Header("X-Content-Type-Options", "nosniff");

    /**
     * A service's {@code Set-Cookie} kept within its runtime: no {@code Domain} (the cookie belongs to
     * the host the browser asked, never to a parent domain shared with other runtimes or the
     * console), and a {@code Path} under {@code root} (one outside it, or none, becomes {@code root}).
     * A cookie named like the proxy's own, or with no name, is dropped: a service may not sign its
     * visitors in or out. (A {@code __Host-} cookie keeps its rule only in subdomain mode: path mode
     * rescopes its {@code Path=/}, and the browser then refuses it.)
     *
     * @return the value to send, or null to send none
     */
    static String scopedCookie(String value, String root) {
        String[] parts = value.split(";");
        String pair = parts[0].trim();
        int eq = pair.indexOf('=');
        String name = (eq < 0 ? pair : pair.substring(0, eq)).trim();
        if (name.isEmpty() || name.equalsIgnoreCase(ProxyAuthentication.COOKIE)) {
            // a nameless cookie comes back as its value alone: "=dockyard_tkn=…" would be the proxy's
            return null;
        }
        StringBuilder out = new StringBuilder(pair);
        boolean pathSeen = false;
        for (int i = 1; i < parts.length; i++) {
            String attribute = parts[i].trim();
            if (attribute.isEmpty()) {
                continue;
            }
            int aeq = attribute.indexOf('=');
            String attributeName = (aeq < 0 ? attribute : attribute.substring(0, aeq)).trim().toLowerCase(Locale.ROOT);
            if (attributeName.equals("domain")) {
                continue;
            }
            if (attributeName.equals("path")) {
                if (pathSeen) {
                    continue;
                }
                pathSeen = true;
                String path = aeq < 0 ? "" : attribute.substring(aeq + 1).trim();
                attribute = "Path=" + (within(path, root) ? path : root);
            }
            out.append("; ").append(attribute);
        }
        if (!pathSeen) {
            out.append("; Path=").append(root);
        }
        return out.toString();
    }

    private static boolean within(String path, String root) {
        if (!path.startsWith("/") || path.contains("..") || path.contains("%")) {
            return false;
        }
        String base = root.endsWith("/") ? root : root + "/";
        return path.equals(root) || path.startsWith(base);
    }

    /** The largest body the proxy reads whole to take the internal key out of it. */
    static final int MAX_REWRITTEN_BODY = 64 * 1024;

    /**
     * Whether this answer's body carries the internal key: the legacy action server's
     * {@code GET /vscode/connection_token}, whose token (the sandbox's session key) clients put in
     * VS Code URLs as {@code ?tkn=}. The only body the proxy edits; every other one streams through.
     */
    public static boolean bodyCarriesKey(ServiceRoute route, String method, int status) {
        return status == 200 && "GET".equals(method) && route.service().equals(ProxyTarget.MAIN)
                && route.forwardPath().equals("/vscode/connection_token");
    }

    /** A (small, UTF-8) body with the internal key replaced by the public one. */
    public static byte[] bodyWithoutInternalKey(byte[] body, ProxyTarget target) {
        String text = new String(body, StandardCharsets.UTF_8);
        String rewritten = withoutInternalKey(text, target);
        return rewritten == text ? body : rewritten.getBytes(StandardCharsets.UTF_8);
    }

    /** The value with the internal key, wherever it appears, replaced by the public one. */
    public static String withoutInternalKey(String value, ProxyTarget target) {
        String internal = target.internalKey();
        return internal == null || internal.isEmpty() || !value.contains(internal)
                ? value : value.replace(internal, target.publicKey());
    }

    /** An absolute redirect to the service's own origin, made relative to its public root; any other stays. */
    static String location(String value, URI service, String publicRoot) {
        URI location;
        try {
            location = new URI(value.trim());
        } catch (URISyntaxException e) {
            return value;
        }
        if (!location.isAbsolute() || !sameOrigin(location, service)) {
            return value;
        }
        String path = location.getRawPath() == null || location.getRawPath().isEmpty() ? "/" : location.getRawPath();
        return publicRoot + path + (location.getRawQuery() == null ? "" : "?" + location.getRawQuery())
                + (location.getRawFragment() == null ? "" : "#" + location.getRawFragment());
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost() != null
                && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return uri.getScheme().toLowerCase(Locale.ROOT).equals("https") ? 443 : 80;
    }
}
