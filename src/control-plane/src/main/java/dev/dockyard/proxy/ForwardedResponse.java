package dev.dockyard.proxy;

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
     * @param service    the service's address (where the proxy sent the request)
     * @param publicRoot the service's public root path: context path and the stripped prefix
     */
    public static List<Header> headers(List<Header> fromService, ProxyTarget target, URI service, String publicRoot) {
        List<Header> out = new ArrayList<>();
        for (Header h : HopByHop.strip(fromService)) {
            String value = h.is("Location") ? location(h.value(), service, publicRoot) : h.value();
            out.add(new Header(h.name(), withoutInternalKey(value, target)));
        }
        return out;
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
