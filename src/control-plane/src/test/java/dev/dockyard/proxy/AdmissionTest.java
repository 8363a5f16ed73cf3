package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.http.Header;
import dev.dockyard.proxy.Admission.Admitted;
import dev.dockyard.proxy.Admission.Refused;
import dev.dockyard.proxy.ProxyAuthentication.Presented;
import dev.dockyard.proxy.ProxyAuthentication.Source;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdmissionTest {

    static final String RID = "rt-0123456789abcdef";
    static final URI MAIN = URI.create("http://127.0.0.1:40001");
    static final URI VSCODE = URI.create("http://127.0.0.1:40002");

    static ProxyTarget target(ProxyTarget.State state) {
        return new ProxyTarget(RID, "u1", state, "PUBLIC", "INTERNAL", Map.of("main", MAIN, "vscode", VSCODE));
    }

    static final Presented WITH_HEADER = Presented.one("PUBLIC", null, null);
    static final Presented NOTHING = Presented.one(null, null, null);

    @Test
    void shouldAdmitTheHolderOfThePublicKeyWhereverItPresentsIt() {
        assertEquals(Optional.of(Source.HEADER), admitted("/x", "GET", WITH_HEADER).authenticatedBy());
        assertEquals(Optional.of(Source.QUERY), admitted("/x", "GET", Presented.one(null, "PUBLIC", null)).authenticatedBy());
        assertEquals(Optional.of(Source.COOKIE), admitted("/x", "GET", Presented.one(null, null, "PUBLIC")).authenticatedBy());
        // any one right place is enough, the header first
        assertEquals(Optional.of(Source.QUERY), admitted("/x", "GET", Presented.one("wrong", "PUBLIC", "old")).authenticatedBy());
        Admitted a = admitted("/vscode/x", "POST", WITH_HEADER);
        assertEquals(VSCODE, a.service());
        assertTrue(a.authenticated());
    }

    @Test
    void shouldRefuseMissingAndWrongKeys() {
        for (Presented p : List.of(NOTHING, Presented.one("public", null, null), Presented.one("PUBLIC ", null, null),
                Presented.one("PUBLI", null, null), Presented.one("INTERNAL", "INTERNAL", "INTERNAL"),
                Presented.one("", "", ""))) {
            assertRefused(401, decide(Optional.of(target(ProxyTarget.State.READY)), "/x", "GET", p));
        }
    }

    @Test
    void shouldLetHealthProbesOfTheMainServiceInWithoutAKey() {
        Admitted a = admitted("/alive", "GET", NOTHING);
        assertFalse(a.authenticated());
        assertFalse(admitted("/server_info", "HEAD", Presented.one("wrong", null, null)).authenticated());
        assertTrue(admitted("/ready", "GET", WITH_HEADER).authenticated());
        assertRefused(401, decide(Optional.of(target(ProxyTarget.State.READY)), "/alive", "POST", NOTHING));
        assertRefused(401, decide(Optional.of(target(ProxyTarget.State.READY)), "/vscode/alive", "GET", NOTHING));
    }

    @Test
    void shouldNeverLetAnUpgradeInWithoutAKeyEvenOnAHealthPath() {
        for (String path : List.of("/alive", "/health", "/ready", "/server_info")) {
            for (String method : List.of("GET", "HEAD")) {
                assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route(path), method,
                        NOTHING, true));
                assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route(path), method,
                        Presented.one("wrong", null, null), true));
            }
        }
        // with the key an upgrade is admitted like anything else
        Admitted a = assertInstanceOf(Admitted.class, Admission.decide(Optional.of(target(ProxyTarget.State.READY)),
                route("/alive"), "GET", WITH_HEADER, true));
        assertTrue(a.authenticated());
    }

    @Test
    void shouldTakeEveryProtocolButHttp2InAnUpgradeHeaderAsAskingForATunnel() {
        assertTrue(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Upgrade", "websocket"))));
        assertTrue(ServiceProxyFilter.asksForUpgrade(List.of(new Header("upgrade", " WebSocket "))));
        assertTrue(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Upgrade", "h2c, websocket"))));
        assertTrue(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Upgrade", "h2c"),
                new Header("Upgrade", "tcp"))));
        assertFalse(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Upgrade", "h2c"),
                new Header("Connection", "Upgrade, HTTP2-Settings"))), "the JDK client's HTTP/2 offer");
        assertFalse(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Upgrade", " "))));
        assertFalse(ServiceProxyFilter.asksForUpgrade(List.of(new Header("Accept", "*/*"))));
    }

    @Test
    void shouldDecideInOrderRuntimeKeyServiceState() {
        assertRefused(404, decide(Optional.empty(), "/x", "GET", WITH_HEADER));
        assertRefused(404, decide(Optional.empty(), "/alive", "GET", NOTHING));
        // the key before anything about the runtime
        assertRefused(401, decide(Optional.of(target(ProxyTarget.State.PAUSED)), "/work-1/x", "GET", NOTHING));
        assertRefused(404, decide(Optional.of(target(ProxyTarget.State.READY)), "/work-1/x", "GET", WITH_HEADER));
        assertRefused(404, decide(Optional.of(target(ProxyTarget.State.PAUSED)), "/work-1/x", "GET", WITH_HEADER));
        assertRefused(503, decide(Optional.of(target(ProxyTarget.State.PAUSED)), "/x", "GET", WITH_HEADER));
        assertRefused(503, decide(Optional.of(target(ProxyTarget.State.PAUSED)), "/alive", "GET", NOTHING));
        assertRefused(502, decide(Optional.of(target(ProxyTarget.State.NOT_READY)), "/x", "GET", WITH_HEADER));
    }

    @Test
    void shouldAskToRetryWhileTheRuntimeIsBeingRecoveredOnlyOfWhoHoldsTheKey() {
        assertRefused(401, decide(Optional.of(target(ProxyTarget.State.RECOVERING)), "/x", "GET", NOTHING));
        Refused refused = assertInstanceOf(Refused.class,
                decide(Optional.of(target(ProxyTarget.State.RECOVERING)), "/x", "GET", WITH_HEADER));
        assertEquals(503, refused.status());
        assertEquals(2, refused.retryAfterSeconds(), "OpenHands' clients resume on a 503, and wait for it");
        // a health probe without the key hears the same (the paused runtime's probe hears its 503 too)
        assertEquals(2, assertInstanceOf(Refused.class,
                decide(Optional.of(target(ProxyTarget.State.RECOVERING)), "/alive", "GET", NOTHING)).retryAfterSeconds());
        assertEquals(0, assertInstanceOf(Refused.class,
                decide(Optional.of(target(ProxyTarget.State.NOT_READY)), "/x", "GET", WITH_HEADER)).retryAfterSeconds());
    }

    @Test
    void shouldMatchNothingWithAnEmptyKey() {
        ProxyTarget keyless = new ProxyTarget(RID, "u1", ProxyTarget.State.READY, "", "INTERNAL", Map.of("main", MAIN));
        assertRefused(401, Admission.decide(Optional.of(keyless), route("/x"), "GET", Presented.one("", "", "")));
    }

    @Test
    void shouldReadTheKeysFromHeaderQueryAndCookie() {
        Presented p = Presented.of(List.of(new Header("x-session-api-key", "H"),
                new Header("Cookie", "a=1; dockyard_tkn=C; b=2")), "x=1&tkn=Q%3D&y");
        assertEquals(Presented.one("H", "Q=", "C"), p);
        assertEquals(NOTHING, Presented.of(List.of(new Header("Cookie", "vscode-tkn=V")), null));
        assertEquals(Presented.one(null, "S", null), Presented.of(List.of(), "resend_all=true&session_api_key=S"),
                "the agent server's own query parameter");
        assertEquals(Presented.one(null, "T", null), Presented.of(List.of(), "session_api_key=S&tkn=T"), "tkn first");
        assertFalse(p.toString().contains("Q="), "the keys stay out of logs: " + p);
    }

    @Test
    void shouldScopeTheProxyCookieToTheRuntime() {
        assertEquals("dockyard_tkn=PUBLIC; Path=/" + RID + "; HttpOnly; SameSite=Lax",
                ProxyAuthentication.cookie("PUBLIC", "/" + RID, false));
        assertEquals("dockyard_tkn=PUBLIC; Path=/ctx/" + RID + "; HttpOnly; SameSite=Lax; Secure",
                ProxyAuthentication.cookie("PUBLIC", "/ctx/" + RID, true));
    }

    @Test
    void shouldTakeTheCookieForReadingOnly() {
        Presented cookie = Presented.one(null, null, "PUBLIC");
        assertEquals(Optional.of(Source.COOKIE), admitted("/x", "HEAD", cookie).authenticatedBy());
        for (String method : new String[] {"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get"}) {
            Admission refused = decide(Optional.of(target(ProxyTarget.State.READY)), "/x", method, cookie);
            assertRefused(401, refused);
            assertTrue(((Refused) refused).detail().contains("X-Session-API-Key"), refused.toString());
        }
        // from a page of the runtime's own host (subdomain mode), the cookie signs in writes too
        assertEquals(Optional.of(Source.COOKIE), assertInstanceOf(Admitted.class, Admission.decide(
                Optional.of(target(ProxyTarget.State.READY)), route("/x"), "POST", cookie, false, true)).authenticatedBy());
        // the header still opens every method, whatever cookie comes along
        assertEquals(Optional.of(Source.HEADER), admitted("/x", "POST", Presented.one("PUBLIC", null, "PUBLIC"))
                .authenticatedBy());
        assertEquals(Optional.of(Source.QUERY), admitted("/x", "POST", Presented.one(null, "PUBLIC", null))
                .authenticatedBy());
    }

    @Test
    void shouldFindTheRuntimesCookieAmongOnesASiblingHostTossedIn() {
        Presented tossed = Presented.of(List.of(new Header("Cookie", "dockyard_tkn=planted; dockyard_tkn=PUBLIC")), null);
        assertEquals(List.of("planted", "PUBLIC"), tossed.cookies());
        assertEquals(Optional.of(Source.COOKIE), admitted("/x", "GET", tossed).authenticatedBy());
        assertRefused(401, decide(Optional.of(target(ProxyTarget.State.READY)), "/x", "GET",
                new Presented(null, null, List.of("planted", "other"))));
    }

    @Test
    void shouldTellAPageOfTheRuntimesOwnHostFromAnyOther() {
        String host = "work-1-rt-1.localhost:9081";
        assertTrue(ProxyAuthentication.sentByOwnPage("http://" + host, null, host));
        assertTrue(ProxyAuthentication.sentByOwnPage(null, "same-origin", host));
        assertFalse(ProxyAuthentication.sentByOwnPage(null, null, host), "no word from the browser");
        assertFalse(ProxyAuthentication.sentByOwnPage(null, "same-site", host));
        assertFalse(ProxyAuthentication.sentByOwnPage("http://rt-1.localhost:9081", "same-origin", host));
        assertFalse(ProxyAuthentication.sentByOwnPage("null", "same-origin", host));
    }

    @Test
    void shouldOpenCookieConnectionsFromTheRuntimesOwnPagesOnly() {
        assertTrue(ProxyAuthentication.fromOwnPages(null, "rt-1.localhost:9081"));
        assertTrue(ProxyAuthentication.fromOwnPages("http://rt-1.localhost:9081", "rt-1.localhost:9081"));
        assertTrue(ProxyAuthentication.fromOwnPages("https://RT-1.localhost:9081", "rt-1.localhost:9081"));
        assertFalse(ProxyAuthentication.fromOwnPages("http://rt-2.localhost:9081", "rt-1.localhost:9081"));
        assertFalse(ProxyAuthentication.fromOwnPages("http://127.0.0.1:9080", "127.0.0.1:9081"));
        assertFalse(ProxyAuthentication.fromOwnPages("null", "127.0.0.1:9081"));
        assertFalse(ProxyAuthentication.fromOwnPages("http://rt-1.localhost:9081", null));
    }

    @Test
    void shouldLetAKeylessWebSocketToTheMainServiceSignInWithItsFirstMessage() {
        // OpenHands' SDK opens /sockets/events/{id} with no key and sends it as its first message
        Admitted a = assertInstanceOf(Admitted.class, Admission.decide(Optional.of(target(ProxyTarget.State.READY)),
                route("/sockets/events/c1"), "GET", NOTHING, true, false, true));
        assertEquals(Optional.of(Source.FIRST_MESSAGE), a.authenticatedBy());
        assertTrue(a.awaitsFirstMessage());
        assertFalse(a.authenticated(), "no internal key goes with the handshake");
        // a wrong key presented, another service, another protocol, a runtime not READY: refused as before
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route("/sockets/events/c1"),
                "GET", Presented.one("wrong", null, null), true, false, true));
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route("/vscode/x"), "GET",
                NOTHING, true, false, true));
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route("/sockets/events/c1"),
                "GET", NOTHING, true, false, false));
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.PAUSED)), route("/sockets/events/c1"),
                "GET", NOTHING, true, false, true));
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route("/x"), "GET",
                NOTHING, false, false, true));
        // only the agent server's sockets, by GET, in plain segments
        for (String path : List.of("/alive", "/x", "/api/bash/start_bash_command", "/sockets", "/sockets/../api/x",
                "/sockets/events/%2e%2e", "/socketsx/events")) {
            assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route(path), "GET",
                    NOTHING, true, false, true));
        }
        assertRefused(401, Admission.decide(Optional.of(target(ProxyTarget.State.READY)), route("/sockets/events/c1"),
                "POST", NOTHING, true, false, true));
        assertEquals(Optional.of(Source.FIRST_MESSAGE), assertInstanceOf(Admitted.class, Admission.decide(
                Optional.of(target(ProxyTarget.State.READY)), route("/sockets/bash-events"), "GET", NOTHING, true,
                false, true)).authenticatedBy());
    }

    private static Admitted admitted(String rest, String method, Presented presented) {
        return assertInstanceOf(Admitted.class, decide(Optional.of(target(ProxyTarget.State.READY)), rest, method, presented));
    }

    private static Admission decide(Optional<ProxyTarget> target, String rest, String method, Presented presented) {
        return Admission.decide(target, route(rest), method, presented);
    }

    private static ServiceRoute route(String rest) {
        return ServiceRoute.parse("/" + RID + rest).orElseThrow();
    }

    private static void assertRefused(int status, Admission admission) {
        Refused refused = assertInstanceOf(Refused.class, admission);
        assertEquals(status, refused.status(), refused.detail());
        assertFalse(refused.detail().isBlank());
    }
}
