package dev.dockyard.proxy;

import dev.dockyard.http.Header;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who may use a runtime's service URLs: the holder of its public session key, presented in one of
 * three places. Programs send the {@code X-Session-API-Key} header (OpenHands' clients do); a
 * browser opens a link with {@code ?tkn=} (OpenHands builds VS Code URLs that way) and from then on
 * carries the cookie the proxy sets in answer, scoped to the runtime, so the pages, scripts and
 * WebSockets that link loads keep working without the key in every URL. Keys are compared in
 * constant time and never logged.
 */
public final class ProxyAuthentication {

    public static final String HEADER = "X-Session-API-Key";
    public static final String QUERY = "tkn";
    /**
     * OpenHands' agent server's own query parameter for the key, which its clients put in a
     * WebSocket's URL (deprecated there for the first message, still read): a key like {@code tkn},
     * passed on to the main service as the internal key.
     */
    public static final String AGENT_QUERY = "session_api_key";
    /** The proxy's own cookie; never forwarded to the sandbox. */
    public static final String COOKIE = "dockyard_tkn";

    /**
     * The methods the cookie signs in. A browser sends the cookie with whatever any page asks of
     * it, a form's POST included (SameSite=Lax holds it back across sites, not across the ports
     * and subdomains of one site), so the cookie only opens what a link can: reading pages.
     */
    public static final Set<String> COOKIE_METHODS = Set.of("GET", "HEAD");

    /** Where the key that matched came from. */
    public enum Source {
        HEADER, QUERY, COOKIE,
        /**
         * Not yet: a WebSocket to the main service whose client signs in with its first message
         * ({@link FirstMessageAuth}); nothing it sends reaches the sandbox before that.
         */
        FIRST_MESSAGE
    }

    /**
     * The keys a request presents, header and query null when absent. Every {@code dockyard_tkn} the
     * browser sends is kept: a page of a sibling host (subdomain mode) may set one for the parent
     * domain, which the browser then sends beside the runtime's own, in either order.
     */
    public record Presented(String header, String query, List<String> cookies) {

        public Presented {
            cookies = cookies == null ? List.of() : List.copyOf(cookies);
        }

        /** Whether no key is presented anywhere. */
        public boolean isEmpty() {
            return header == null && query == null && cookies.isEmpty();
        }

        /** With one cookie, or none when null. */
        public static Presented one(String header, String query, String cookie) {
            return new Presented(header, query, cookie == null ? List.<String>of() : List.of(cookie));
        }

        public static Presented of(List<Header> headers, String rawQuery) {
            String header = headers.stream().filter(h -> h.is(HEADER)).map(Header::value).findFirst().orElse(null);
            return new Presented(header, QueryString.value(rawQuery, QUERY)
                    .or(() -> QueryString.value(rawQuery, AGENT_QUERY)).orElse(null), Cookies.values(headers, COOKIE));
        }

        @Override
        public String toString() {
            return "Presented[header=" + (header != null) + ", query=" + (query != null) + ", cookies="
                    + cookies.size() + "]"; // never the keys
        }
    }

    private ProxyAuthentication() {
    }

    /** The first place, header then query then cookie, that holds this public key. */
    public static Optional<Source> authenticate(Presented presented, String publicKey) {
        if (matches(presented.header(), publicKey)) {
            return Optional.of(Source.HEADER);
        }
        if (matches(presented.query(), publicKey)) {
            return Optional.of(Source.QUERY);
        }
        for (String cookie : presented.cookies()) {
            if (matches(cookie, publicKey)) {
                return Optional.of(Source.COOKIE);
            }
        }
        return Optional.empty();
    }

    /** Constant time in the length of what was given; an empty expected key matches nothing. */
    static boolean matches(String given, String expected) {
        if (given == null || expected == null || expected.isEmpty()) {
            return false;
        }
        return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Whether a browser's request came from a page of the host it asks ({@code Origin}'s host and
     * port equal to {@code Host}; the scheme is left out, as a TLS front end changes it), or from no
     * page at all (no {@code Origin}: not a browser's script).
     * A WebSocket is not bound by the same-origin policy, so one signed in by the cookie is opened
     * only from the runtime's own pages: another runtime's page on the same site would otherwise
     * open it with this runtime's cookie.
     */
    /**
     * Whether a browser says the request comes from a page of the very host it asks: {@code Origin}
     * equal to it, or {@code Sec-Fetch-Site: same-origin} (headers no page's script can set). Only
     * then does the cookie sign in what changes state, and only where the host is the runtime's own
     * (subdomain mode): on path mode's shared origin every runtime's page is "same origin".
     */
    public static boolean sentByOwnPage(String originHeader, String secFetchSite, String host) {
        boolean origin = originHeader != null && !originHeader.isBlank() && fromOwnPages(originHeader, host);
        return origin || (secFetchSite != null && secFetchSite.strip().equalsIgnoreCase("same-origin")
                && (originHeader == null || originHeader.isBlank()));
    }

    public static boolean fromOwnPages(String originHeader, String host) {
        if (originHeader == null || originHeader.isBlank()) {
            return true;
        }
        String origin = originHeader.strip();
        int scheme = origin.indexOf("://");
        return host != null && scheme > 0 && origin.substring(scheme + 3).equalsIgnoreCase(host.strip());
    }

    /**
     * The Set-Cookie header value that lets a browser that came with {@code ?tkn=} in: HttpOnly (no
     * script reads it), SameSite=Lax (no cross-site POST carries it), scoped to the runtime's path.
     */
    public static String cookie(String publicKey, String path, boolean secure) {
        return COOKIE + "=" + publicKey + "; Path=" + path + "; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "");
    }
}
