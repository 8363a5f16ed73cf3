package dev.dockyard.proxy;

import static dev.dockyard.proxy.ForwardedRequestTest.byName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ForwardedResponseTest {

    static final String RID = "rt-0123456789abcdef";
    static final URI SERVICE = URI.create("http://127.0.0.1:40001");
    static final ProxyTarget TARGET = new ProxyTarget(RID, "u1", ProxyTarget.State.READY, "PUBLIC", "INTERNAL",
            Map.of("main", SERVICE));

    @Test
    void shouldGiveTheClientThePublicKeyWhereTheSandboxSentTheInternalOne() {
        List<Header> out = headers(List.of(
                new Header("Set-Cookie", "vscode-tkn=INTERNAL; Path=/; HttpOnly"),
                new Header("Set-Cookie", "other=1"),
                new Header("X-Token", "Bearer INTERNAL/INTERNAL")), "/" + RID);
        assertEquals(Map.of("set-cookie", List.of("vscode-tkn=PUBLIC; Path=/" + RID + "; HttpOnly",
                        "other=1; Path=/" + RID), "x-token", List.of("Bearer PUBLIC/PUBLIC"),
                "x-content-type-options", List.of("nosniff")), byName(out));
    }

    @Test
    void shouldDropHopByHopHeadersOfTheResponse() {
        List<Header> out = headers(List.of(new Header("Connection", "close, X-Hop"),
                new Header("Keep-Alive", "timeout=5"), new Header("Transfer-Encoding", "chunked"),
                new Header("X-Hop", "1"), new Header("Proxy-Authenticate", "Basic"), new Header("Upgrade", "h2c"),
                new Header("Content-Type", "text/plain"), new Header("Content-Length", "12")), "/" + RID);
        assertEquals(Map.of("content-type", List.of("text/plain"), "content-length", List.of("12"),
                "x-content-type-options", List.of("nosniff")), byName(out));
    }

    @Test
    void shouldPointRedirectsToTheSandboxAtItsPublicPrefix() {
        assertEquals("/" + RID + "/login?next=%2F&tkn=PUBLIC#top",
                location("http://127.0.0.1:40001/login?next=%2F&tkn=INTERNAL#top", "/" + RID));
        assertEquals("/ctx/" + RID + "/work-1/", location("http://127.0.0.1:40001", "/ctx/" + RID + "/work-1"));
        assertEquals("/" + RID + "/vscode/", location("HTTP://127.0.0.1:40001/" + RID + "/vscode/", ""));
        // relative, absolute-path and elsewhere stay
        assertEquals("login", location("login", "/" + RID));
        assertEquals("/login", location("/login", "/" + RID));
        assertEquals("http://127.0.0.1:40002/x", location("http://127.0.0.1:40002/x", "/" + RID));
        assertEquals("https://github.com/login", location("https://github.com/login", "/" + RID));
        assertEquals("http://[bad", location("http://[bad", "/" + RID));
    }

    @Test
    void shouldGiveTheVsCodeTokenAsThePublicKey() {
        ServiceRoute token = ServiceRoute.parse("/" + RID + "/vscode/connection_token").orElseThrow();
        assertTrue(ForwardedResponse.bodyCarriesKey(token, "GET", 200));
        assertFalse(ForwardedResponse.bodyCarriesKey(token, "POST", 200));
        assertFalse(ForwardedResponse.bodyCarriesKey(token, "GET", 404));
        assertFalse(ForwardedResponse.bodyCarriesKey(ServiceRoute.parse("/" + RID + "/vscode/x").orElseThrow(), "GET", 200));
        assertFalse(ForwardedResponse.bodyCarriesKey(ServiceRoute.parse("/" + RID + "/work-1/vscode/connection_token")
                .orElseThrow(), "GET", 200));
        assertEquals("{\"token\": \"PUBLIC\"}", new String(ForwardedResponse.bodyWithoutInternalKey(
                "{\"token\": \"INTERNAL\"}".getBytes(StandardCharsets.UTF_8), TARGET), StandardCharsets.UTF_8));
        byte[] none = "{\"token\": null}".getBytes(StandardCharsets.UTF_8);
        assertSame(none, ForwardedResponse.bodyWithoutInternalKey(none, TARGET));
    }

    @Test
    void shouldKeepEveryCookieOfTheServiceWithinItsRuntime() {
        String root = "/" + RID;
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1", root));
        assertEquals("a=1; Path=" + root + "; HttpOnly", ForwardedResponse.scopedCookie("a=1; Path=/; HttpOnly", root));
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1; Path=/console", root));
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1; path=/rt-0123456789abcdee", root));
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1; Path=" + root + "x", root));
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1; Path=" + root + "/../console", root));
        assertEquals("a=1; Path=" + root + "/app; Secure",
                ForwardedResponse.scopedCookie("a=1; Domain=example.com; Path=" + root + "/app; Secure", root));
        assertEquals("a=1; Path=" + root, ForwardedResponse.scopedCookie("a=1; Path=" + root + "; Path=/", root));
        // the proxy's own cookie is never the service's to set, in any case
        assertEquals(null, ForwardedResponse.scopedCookie("dockyard_tkn=x; Path=/", root));
        assertEquals(null, ForwardedResponse.scopedCookie("DOCKYARD_TKN=x", root));
        assertEquals(null, ForwardedResponse.scopedCookie("=dockyard_tkn=x; Path=/", root), "a nameless cookie");
        assertEquals(null, ForwardedResponse.scopedCookie(" =x", root));
        // subdomain mode: the origin is the runtime's, every path is within it, no domain ever
        assertEquals("a=1; Path=/", ForwardedResponse.scopedCookie("a=1; Domain=.localhost; Path=/", "/"));
        assertEquals("a=1; Path=/x", ForwardedResponse.scopedCookie("a=1; Path=/x", "/"));
    }

    @Test
    void shouldAddThePolicyOfTheProxyBesideTheServicesOwnAndNeverLetTheBrowserSniff() {
        List<Header> out = ForwardedResponse.headers(List.of(new Header("Content-Type", "text/html"),
                new Header("Content-Security-Policy", "default-src *"), new Header("X-Content-Type-Options", "off")),
                TARGET, SERVICE, "/" + RID, "/" + RID, "sandbox allow-scripts");
        assertEquals(Map.of("content-type", List.of("text/html"),
                "content-security-policy", List.of("default-src *", "sandbox allow-scripts"),
                "x-content-type-options", List.of("nosniff")), byName(out));
        List<Header> none = ForwardedResponse.headers(List.of(new Header("Content-Type", "text/html")),
                TARGET, SERVICE, "/" + RID, "/" + RID, " ");
        assertFalse(byName(none).containsKey("content-security-policy"), none.toString());
    }

    private static List<Header> headers(List<Header> fromService, String publicRoot) {
        return ForwardedResponse.headers(fromService, TARGET, SERVICE, publicRoot, "/" + RID, null);
    }

    private static String location(String value, String publicRoot) {
        return headers(List.of(new Header("Location", value)), publicRoot).get(0).value();
    }
}
