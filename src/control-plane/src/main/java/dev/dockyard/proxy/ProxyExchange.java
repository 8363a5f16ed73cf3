package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import java.net.URI;
import java.util.List;

/**
 * One admitted request on its way to a service: where it goes, who sent it, what it carried.
 *
 * @param route    the runtime and service the path named
 * @param admitted the runtime, the service's address and how the client authenticated
 * @param headers  the client's headers, in order
 * @param origin   where the client reached Dockyard
 * @param contentSecurityPolicy the proxy's policy added to every answer, or null for none
 * @param e2b      whether it came by E2B's envd routes: the proxy's own answers take E2B's shape
 */
public record ProxyExchange(ServiceRoute route, Admission.Admitted admitted, List<Header> headers,
                            ForwardedRequest.Origin origin, String contentSecurityPolicy, boolean e2b) {

    /** A request of a runtime's service URL (not E2B's envd routes). */
    public ProxyExchange(ServiceRoute route, Admission.Admitted admitted, List<Header> headers,
                         ForwardedRequest.Origin origin, String contentSecurityPolicy) {
        this(route, admitted, headers, origin, contentSecurityPolicy, false);
    }

    public ProxyTarget target() {
        return admitted.target();
    }

    /** The service's public root path (context path and stripped prefix): redirects are rewritten to it. */
    public String publicRoot() {
        return origin.contextPath() + route.prefix();
    }

    /** The headers to send the service. */
    public List<Header> forwardedHeaders(boolean upgrade) {
        return ForwardedRequest.headers(headers, route, target(), admitted.authenticated(), origin, upgrade);
    }

    /** The path and query to ask the service for, still encoded as the client sent them. */
    public String forwardedPathAndQuery(String rawQuery) {
        String query = ForwardedRequest.query(rawQuery, route, target());
        return route.forwardPath() + (query == null ? "" : "?" + query);
    }

    /** The service's URI for this request. */
    public URI serviceUri(String rawQuery) {
        String base = admitted.service().toString();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + forwardedPathAndQuery(rawQuery));
    }

    /** The response headers to give the client. */
    public List<Header> responseHeaders(List<Header> fromService) {
        return ForwardedResponse.headers(fromService, target(), admitted.service(), publicRoot(), cookieRoot(),
                contentSecurityPolicy);
    }

    /** The path every cookie of this runtime is scoped to: its root in path mode, the origin's in subdomain mode. */
    public String cookieRoot() {
        return origin.contextPath() + route.runtimeRoot();
    }

    /** The cookie that keeps a browser that came with {@code ?tkn=} signed in, or null. */
    public String proxyCookie(boolean secure) {
        return admitted.authenticatedBy().filter(s -> s == ProxyAuthentication.Source.QUERY).isPresent()
                ? ProxyAuthentication.cookie(target().publicKey(), cookieRoot(), secure)
                : null;
    }
}
