package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ForwardedRequestTest {

    static final String RID = "rt-0123456789abcdef";
    static final ProxyTarget TARGET = new ProxyTarget(RID, "u1", ProxyTarget.State.READY, "PUBLIC", "INTERNAL",
            Map.of("main", URI.create("http://127.0.0.1:1")));
    static final ForwardedRequest.Origin ORIGIN = new ForwardedRequest.Origin("10.0.0.9", "https", "dockyard.example", "");

    @Test
    void shouldPutTheInternalKeyInTheHeaderOfAnAuthenticatedRequest() {
        List<Header> out = headers("/x", true, new Header("X-Session-API-Key", "PUBLIC"), new Header("Accept", "*/*"));
        assertEquals(List.of("INTERNAL"), values(out, "X-Session-API-Key"));
        assertEquals(List.of("*/*"), values(out, "Accept"));
    }

    @Test
    void shouldSendNoKeyForAnAnonymousHealthProbe() {
        List<Header> out = headers("/alive", false, new Header("X-Session-API-Key", "a guess"));
        assertEquals(List.of(), values(out, "X-Session-API-Key"));
    }

    @Test
    void shouldDropHopByHopHeadersDockyardsKeyAndThoseConnectionNames() {
        List<Header> out = headers("/x", true, new Header("Connection", "keep-alive, X-Private"),
                new Header("Keep-Alive", "timeout=5"), new Header("Proxy-Authorization", "Basic x"),
                new Header("Proxy-Connection", "keep-alive"), new Header("TE", "trailers"), new Header("Trailer", "X"),
                new Header("Transfer-Encoding", "chunked"), new Header("Upgrade", "h2c"), new Header("Host", "dockyard"),
                new Header("X-Private", "hop"), new Header("X-API-Key", "dockyard-admin"), new Header("Content-Length", "3"),
                new Header("Expect", "100-continue"), new Header("Content-Type", "application/json"),
                new Header("Authorization", "Bearer for-the-sandbox"));
        assertEquals(Map.of("content-type", List.of("application/json"), "authorization", List.of("Bearer for-the-sandbox"),
                "x-session-api-key", List.of("INTERNAL"), "x-forwarded-for", List.of("10.0.0.9"),
                "x-forwarded-proto", List.of("https"), "x-forwarded-host", List.of("dockyard.example"),
                "x-forwarded-prefix", List.of("/" + RID)), byName(out));
    }

    @Test
    void shouldKeepTheHandshakeHeadersOfAnUpgrade() {
        List<Header> out = ForwardedRequest.headers(List.of(new Header("Connection", "keep-alive, Upgrade"),
                        new Header("Upgrade", "websocket"), new Header("Sec-WebSocket-Key", "k"),
                        new Header("Sec-WebSocket-Version", "13"), new Header("Sec-WebSocket-Protocol", "chat")),
                route("/work-1/socket"), TARGET, true, ORIGIN, true);
        assertEquals(List.of("websocket"), values(out, "Upgrade"));
        assertEquals(List.of("Upgrade"), values(out, "Connection"));
        assertEquals(List.of("k"), values(out, "Sec-WebSocket-Key"));
        assertEquals(List.of("chat"), values(out, "Sec-WebSocket-Protocol"));
        assertEquals(List.of("/" + RID + "/work-1"), values(out, "X-Forwarded-Prefix"));
    }

    @Test
    void shouldAppendTheClientToForwardedForAndReplaceTheRestFromATrustedProxy() {
        List<Header> out = ForwardedRequest.headers(List.of(new Header("X-Forwarded-For", "1.1.1.1"),
                        new Header("X-Forwarded-Host", "evil"), new Header("X-Forwarded-Prefix", "/evil"),
                        new Header("X-Forwarded-Proto", "gopher"), new Header("Forwarded", "for=1.1.1.1")),
                route("/vscode/x"), TARGET, true, new ForwardedRequest.Origin("10.0.0.9", "http", null, "/ctx", true),
                false);
        assertEquals(List.of("for=1.1.1.1"), values(out, "Forwarded"), "a trusted proxy's word is passed on");
        assertEquals(List.of("1.1.1.1, 10.0.0.9"), values(out, "X-Forwarded-For"));
        assertEquals(List.of("http"), values(out, "X-Forwarded-Proto"));
        assertEquals(List.of(), values(out, "X-Forwarded-Host"));
        assertEquals(List.of("/ctx"), values(out, "X-Forwarded-Prefix"), "VS Code's path is not stripped: only the context");
        assertEquals(List.of(), values(headers("/vscode/x", true), "X-Forwarded-Prefix"), "nothing stripped at the root");
    }

    @Test
    void shouldDropWhatAClientThatIsNoTrustedProxySaysAboutWhereItCameFrom() {
        List<Header> out = ForwardedRequest.headers(List.of(new Header("Forwarded", "for=127.0.0.1;proto=https"),
                        new Header("forwarded", "host=admin.internal"), new Header("X-Forwarded-For", "127.0.0.1"),
                        new Header("X-Forwarded-Host", "evil"), new Header("X-Forwarded-Port", "443"),
                        new Header("X-Forwarded-Server", "evil"), new Header("x-forwarded-ssl", "on"),
                        new Header("X-Real-IP", "127.0.0.1"), new Header("Accept", "*/*")),
                route("/x"), TARGET, true, ORIGIN, false);
        assertEquals(Map.of("accept", List.of("*/*"), "x-session-api-key", List.of("INTERNAL"),
                "x-forwarded-for", List.of("10.0.0.9"), "x-forwarded-proto", List.of("https"),
                "x-forwarded-host", List.of("dockyard.example"), "x-forwarded-prefix", List.of("/" + RID)), byName(out));
        // and for an upgrade alike
        List<Header> upgrade = ForwardedRequest.headers(List.of(new Header("Forwarded", "for=127.0.0.1"),
                new Header("Upgrade", "websocket"), new Header("X-Forwarded-For", "127.0.0.1")),
                route("/work-1/socket"), TARGET, true, ORIGIN, true);
        assertEquals(List.of(), values(upgrade, "Forwarded"));
        assertEquals(List.of("10.0.0.9"), values(upgrade, "X-Forwarded-For"));
    }

    @Test
    void shouldKeepTheProxysCookieAndSwapVsCodesToken() {
        Header cookie = new Header("Cookie", "a=1; dockyard_tkn=PUBLIC; vscode-tkn=PUBLIC; b=\"q\"");
        assertEquals(List.of("a=1; vscode-tkn=INTERNAL; b=\"q\""), values(headers("/vscode/", true, cookie), "Cookie"));
        assertEquals(List.of("a=1; vscode-tkn=PUBLIC; b=\"q\""), values(headers("/x", true, cookie), "Cookie"),
                "only VS Code knows its token");
        assertEquals(List.of("vscode-tkn=stale"), values(headers("/vscode/", true,
                new Header("Cookie", "vscode-tkn=stale")), "Cookie"), "a token that is not the public key stays");
        assertEquals(List.of(), values(headers("/x", true, new Header("Cookie", "dockyard_tkn=PUBLIC")), "Cookie"));
        assertEquals(List.of("a=1; b=2"), values(headers("/x", true, new Header("Cookie", "a=1"),
                new Header("Cookie", "b=2")), "Cookie"));
    }

    @Test
    void shouldSwapTknForVsCodeAndDropItElsewhere() {
        assertEquals("tkn=INTERNAL&folder=%2Fworkspace%2Fproject",
                ForwardedRequest.query("tkn=PUBLIC&folder=%2Fworkspace%2Fproject", route("/vscode"), TARGET));
        assertEquals("tkn=other&a=1", ForwardedRequest.query("tkn=other&a=1", route("/vscode"), TARGET));
        assertEquals("a=1&b=%20+x&c", ForwardedRequest.query("a=1&tkn=PUBLIC&b=%20+x&c&tkn=other", route("/x"), TARGET));
        assertNull(ForwardedRequest.query("tkn=PUBLIC", route("/work-1/"), TARGET));
        assertNull(ForwardedRequest.query(null, route("/x"), TARGET));
        assertNull(ForwardedRequest.query(null, route("/vscode"), TARGET));
        // the agent server's own parameter (its WebSocket clients' legacy form): never the public key inside
        assertEquals("resend_all=true&session_api_key=INTERNAL",
                ForwardedRequest.query("resend_all=true&session_api_key=PUBLIC", route("/sockets/events/c1"), TARGET));
        assertEquals("session_api_key=INTERNAL", ForwardedRequest.query("session_api_key=PUBLIC", route("/work-1/"), TARGET));
        assertEquals("session_api_key=other", ForwardedRequest.query("session_api_key=other", route("/x"), TARGET));
    }

    @Test
    void shouldEditOneQueryParameterAndLeaveTheRestAsWritten() {
        assertEquals("a=%41&b", QueryString.without("a=%41&t%6Bn=x&b", "tkn"));
        assertEquals("x", QueryString.value("a=1&tkn=x&tkn=y", "tkn").orElseThrow());
        assertEquals("", QueryString.value("tkn", "tkn").orElseThrow());
        assertEquals("a b", QueryString.value("tkn=a+b", "tkn").orElseThrow());
        assertEquals("%zz", QueryString.value("tkn=%zz", "tkn").orElseThrow());
        assertEquals("tkn=a%2Bb%2F", QueryString.replace("tkn=K", "tkn", "K", "a+b/"));
        assertFalse(QueryString.value("a=1", "tkn").isPresent());
    }

    private static List<Header> headers(String rest, boolean authenticated, Header... incoming) {
        return ForwardedRequest.headers(List.of(incoming), route(rest), TARGET, authenticated, ORIGIN, false);
    }

    private static ServiceRoute route(String rest) {
        return ServiceRoute.parse("/" + RID + rest).orElseThrow();
    }

    static List<String> values(List<Header> headers, String name) {
        return headers.stream().filter(h -> h.is(name)).map(Header::value).toList();
    }

    static Map<String, List<String>> byName(List<Header> headers) {
        return headers.stream().collect(Collectors.groupingBy(h -> h.name().toLowerCase(),
                Collectors.mapping(Header::value, Collectors.toList())));
    }
}
