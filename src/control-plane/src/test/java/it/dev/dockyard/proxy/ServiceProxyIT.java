package it.dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dockyard.application.remote.ProxyTargets;
import dev.dockyard.http.ChunkedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service-URL proxy end to end in a real Liberty: the control plane's WAR with a test
 * {@code ProxyTargets} that points at sandbox services this test runs on 127.0.0.1 (a JDK HTTP
 * server, a hand-written WebSocket echo server). The test is a client, like OpenHands or a browser,
 * of Liberty's port.
 */
@ExtendWith(ArquillianExtension.class)
class ServiceProxyIT {

    static final String A = "rt-00000000000000a1";
    static final String B = "rt-00000000000000b2";
    static final String PAUSED = "rt-00000000000000c3";
    static final String NOT_READY = "rt-00000000000000d4";
    static final String UNREACHABLE = "rt-00000000000000e5";
    static final String RECOVERING = "rt-00000000000000f6";
    static final String DROPPING = "rt-00000000000000d7";
    static final String UNKNOWN = "rt-00000000000000ff";

    static final String PUBLIC_A = "public-a-" + UUID.randomUUID();
    static final String INTERNAL_A = "internal-a-" + UUID.randomUUID();
    static final String PUBLIC_B = "public-b-" + UUID.randomUUID();

    static SandboxHttpServer http;
    static WebSocketEchoServer ws;
    static ServerSocket dropping;
    static boolean targetsSet;

    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    @ArquillianResource
    URL base;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ShrinkWrap.create(ZipImporter.class, "dockyard.war").importFrom(new File("target/dockyard.war"))
                .as(WebArchive.class).addClasses(FakeProxyTargets.class, FakeProxyTargets.Traffic.class,
                        ProxyTestControl.class);
    }

    @BeforeEach
    void sandboxes() throws Exception {
        if (targetsSet) {
            return;
        }
        http = new SandboxHttpServer();
        ws = new WebSocketEchoServer();
        URI closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        target(A, "READY", PUBLIC_A, INTERNAL_A, Map.of("main", http.uri(), "vscode", http.uri(),
                "work-1", http.uri(), "work-2", ws.uri()));
        target(B, "READY", PUBLIC_B, "internal-b", Map.of("main", http.uri()));
        target(PAUSED, "PAUSED", PUBLIC_A, INTERNAL_A, Map.of("main", http.uri()));
        target(NOT_READY, "NOT_READY", PUBLIC_A, INTERNAL_A, Map.of("main", http.uri()));
        target(UNREACHABLE, "READY", PUBLIC_A, INTERNAL_A, Map.of("main", closed, "work-1", closed));
        target(RECOVERING, "RECOVERING", PUBLIC_A, INTERNAL_A, Map.of("main", http.uri()));
        dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread dropper = new Thread(() -> {
            while (!dropping.isClosed()) {
                try (Socket taken = dropping.accept()) {
                    // taken and closed without an answer, as the engine's port forwarder does for a stopped sandbox
                    taken.getInputStream().read();
                } catch (IOException e) {
                    // closed at the end
                }
            }
        }, "dropping-server");
        dropper.setDaemon(true);
        dropper.start();
        URI drops = URI.create("http://127.0.0.1:" + dropping.getLocalPort());
        target(DROPPING, "READY", PUBLIC_A, INTERNAL_A, Map.of("main", drops, "work-1", drops));
        target(FakeProxyTargets.STILL_RUNNING, "READY", PUBLIC_A, INTERNAL_A, Map.of("main", drops));
        targetsSet = true;
    }

    @AfterAll
    static void stopSandboxes() throws IOException {
        if (http != null) {
            http.close();
        }
        if (ws != null) {
            ws.close();
        }
        if (dropping != null) {
            dropping.close();
        }
    }

    @Test
    void shouldForwardWithTheInternalKeyInPlaceOfThePublicOne() throws Exception {
        HttpResponse<String> r = send(get(A + "/echo?x=1&tkn=" + PUBLIC_A + "&y=%2F")
                .header("X-Session-API-Key", PUBLIC_A).header("X-API-Key", "dockyard-admin").header("X-Custom", "v"));
        assertEquals(200, r.statusCode(), r.body());
        Map<String, String> seen = lines(r.body());
        assertEquals(INTERNAL_A, seen.get("key"));
        assertEquals("/echo", seen.get("path"));
        assertEquals("x=1&y=%2F", seen.get("query"), "tkn is removed for the main service, the rest kept as sent");
        assertEquals("null", seen.get("api-key"), "Dockyard's own key is not forwarded");
        assertEquals(contextPath() + "/" + A, seen.get("prefix"));
        assertEquals("v", seen.get("custom"));
        assertEquals(http.uri().getAuthority(), seen.get("host"));
        assertEquals("127.0.0.1", seen.get("forwarded-for"));
        assertEquals("http", seen.get("forwarded-proto"));
        assertEquals(proxyAuthority(), seen.get("forwarded-host"));
        // the sandbox's cookie and header that carried the internal key carry the public one; its cookie
        // stays within the runtime's path
        assertEquals(List.of("vscode-tkn=" + PUBLIC_A + "; Path=" + contextPath() + "/" + A + "; HttpOnly"),
                r.headers().allValues("Set-Cookie"));
        assertEquals(PUBLIC_A, r.headers().firstValue("X-Seen-Key").orElseThrow());
        assertNoInternalKey(r);

        // a client that offers HTTP/2 (Upgrade: h2c, the JDK client's default) is forwarded like any other
        HttpResponse<String> h2c = HttpClient.newHttpClient().send(get(A + "/echo?q=2")
                .header("X-Session-API-Key", PUBLIC_A).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, h2c.statusCode(), h2c.body());
        assertEquals(INTERNAL_A, lines(h2c.body()).get("key"));
        assertEquals("q=2", lines(h2c.body()).get("query"));
    }

    @Test
    void shouldDropForwardingHeadersFromAClientThatIsNoTrustedProxy() throws Exception {
        HttpResponse<String> r = send(get(A + "/echo").header("X-Session-API-Key", PUBLIC_A)
                .header("Forwarded", "for=10.9.9.9;proto=https").header("X-Forwarded-For", "10.9.9.9")
                .header("X-Forwarded-Host", "admin.internal").header("X-Real-IP", "10.9.9.9"));
        assertEquals(200, r.statusCode(), r.body());
        Map<String, String> seen = lines(r.body());
        assertEquals("null", seen.get("forwarded"));
        assertEquals("null", seen.get("real-ip"));
        assertEquals("127.0.0.1", seen.get("forwarded-for"), "only the address the proxy saw");
        assertEquals(proxyAuthority(), seen.get("forwarded-host"));
    }

    @Test
    void shouldRefuseTwoContentTypes() throws Exception {
        HttpResponse<String> r = send(get(A + "/echo").header("X-Session-API-Key", PUBLIC_A)
                .header("Content-Type", "application/json").header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("Content-Type"), r.body());
    }

    @Test
    void shouldRefuseMissingWrongAndForeignKeys() throws Exception {
        for (HttpRequest.Builder request : List.of(get(A + "/echo"), get(A + "/echo").header("X-Session-API-Key", "wrong"),
                get(A + "/echo").header("X-Session-API-Key", PUBLIC_B), get(A + "/echo?tkn=" + PUBLIC_B),
                get(A + "/echo").header("Cookie", "dockyard_tkn=" + PUBLIC_B),
                get(A + "/echo").header("X-Session-API-Key", INTERNAL_A))) {
            HttpResponse<String> r = send(request);
            assertEquals(401, r.statusCode(), r.body());
            assertEquals("application/json", r.headers().firstValue("Content-Type").orElseThrow().split(";")[0]);
            assertTrue(r.body().startsWith("{\"detail\":"), r.body());
        }
    }

    @Test
    void shouldAnswerForRuntimesThatCannotTakeTraffic() throws Exception {
        assertStatus(503, send(get(PAUSED + "/echo").header("X-Session-API-Key", PUBLIC_A)));
        assertStatus(502, send(get(NOT_READY + "/echo").header("X-Session-API-Key", PUBLIC_A)));
        assertStatus(404, send(get(UNKNOWN + "/echo").header("X-Session-API-Key", PUBLIC_A)));
        // a sandbox program's own port that does not listen (yet) is the program's business: 502
        assertStatus(502, send(get(UNREACHABLE + "/work-1/echo").header("X-Session-API-Key", PUBLIC_A)));
        assertStatus(404, send(get(B + "/vscode/").header("X-Session-API-Key", PUBLIC_B)));
        // the test server gives a service 3 s to start answering (dockyard.proxy.response-timeout)
        assertStatus(504, send(get(A + "/slow").header("X-Session-API-Key", PUBLIC_A)));
    }

    /**
     * A READY runtime whose main service refuses the connection lost its sandbox's server (stopped
     * with an engine restart, or its executor killed): a 503 with {@code Retry-After}, as for a runtime
     * recorded as being recovered, and the reconciler is told (the soak's engine restart, 2026-11-30:
     * both were {@code 502}, which OpenHands' clients give up on and E2B's read as a sandbox gone).
     */
    @Test
    void shouldAskToRetryWhileARuntimeIsBeingRecovered() throws Exception {
        for (String path : List.of(UNREACHABLE + "/echo", RECOVERING + "/echo")) {
            HttpResponse<String> refused = send(get(path).header("X-Session-API-Key", PUBLIC_A));
            assertEquals(503, refused.statusCode(), path + ": " + refused.body());
            assertEquals("2", refused.headers().firstValue("Retry-After").orElse(""), path);
            assertTrue(refused.body().contains("is being recovered"), refused.body());
        }
        awaitTraffic(UNREACHABLE + " unanswered ");
        // the state is the key holder's to know: without it, the same 401 as for any runtime
        assertStatus(401, send(get(RECOVERING + "/echo")));
        assertEquals(503, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A),
                RECOVERING + "/socket"));
    }

    /**
     * A connection taken and dropped with no answer, what the engine's port forwarder does for a
     * sandbox that stopped under it (the soak's engine restart, 2026-11-30: 104 such 502s at envd's
     * routes): at the main service of a sandbox found stopped, a 503 to retry; at another port, 502.
     */
    @Test
    void shouldAskToRetryWhenTheMainServicesConnectionIsDroppedUnansweredAndItsSandboxStopped() throws Exception {
        HttpResponse<String> refused = send(get(DROPPING + "/echo").header("X-Session-API-Key", PUBLIC_A));
        assertEquals(503, refused.statusCode(), refused.body());
        assertEquals("2", refused.headers().firstValue("Retry-After").orElse(""));
        assertTrue(refused.body().contains("is being recovered"), refused.body());
        awaitTraffic(DROPPING + " unanswered ");
        HttpResponse<String> other = send(get(DROPPING + "/work-1/echo").header("X-Session-API-Key", PUBLIC_A));
        assertEquals(502, other.statusCode(), other.body());
        assertTrue(other.body().contains("Runtime service work-1 failed"), other.body());
        // a sandbox that runs on after its server dropped the connection: looked at three times, then 502
        HttpResponse<String> running = send(get(FakeProxyTargets.STILL_RUNNING + "/echo")
                .header("X-Session-API-Key", PUBLIC_A));
        assertEquals(502, running.statusCode(), running.body());
        assertTrue(running.body().contains("Runtime service main failed"), running.body());
        List<String> reports = send(HttpRequest.newBuilder(base.toURI().resolve("proxy-test/traffic"))).body().lines()
                .filter(r -> r.startsWith(FakeProxyTargets.STILL_RUNNING + " unanswered ")).toList();
        assertEquals(3, reports.size(), "asked whether its sandbox stopped three times: " + reports);
    }

    @Test
    void shouldLetHealthProbesInWithoutAKey() throws Exception {
        HttpResponse<String> alive = send(get(A + "/alive"));
        assertEquals(200, alive.statusCode(), alive.body());
        assertTrue(alive.body().contains("\"key\":\"null\""), "no key is forwarded: " + alive.body());
        assertStatus(200, send(get(A + "/health")));
        assertStatus(200, send(get(A + "/alive").method("HEAD", HttpRequest.BodyPublishers.noBody())));
        assertStatus(401, send(get(A + "/alive").POST(HttpRequest.BodyPublishers.ofString("{}"))));
        assertStatus(401, send(get(A + "/alive/more")));
        assertStatus(401, send(get(A + "/work-1/alive")));
        assertStatus(503, send(get(PAUSED + "/alive")));
    }

    @Test
    void shouldSignInABrowserThatCameWithTkn() throws Exception {
        HttpResponse<String> first = send(get(A + "/work-1/echo?tkn=" + PUBLIC_A + "&a=b"));
        assertEquals(200, first.statusCode(), first.body());
        Map<String, String> seen = lines(first.body());
        assertEquals("/echo", seen.get("path"));
        assertEquals("a=b", seen.get("query"));
        assertEquals(INTERNAL_A, seen.get("key"));
        assertEquals(contextPath() + "/" + A + "/work-1", seen.get("prefix"));
        String proxyCookie = "dockyard_tkn=" + PUBLIC_A + "; Path=" + contextPath() + "/" + A + "; HttpOnly; SameSite=Lax";
        assertTrue(first.headers().allValues("Set-Cookie").contains(proxyCookie), first.headers().map().toString());

        HttpResponse<String> later = send(get(A + "/work-1").header("Cookie", "other=1; dockyard_tkn=" + PUBLIC_A));
        assertEquals(200, later.statusCode(), later.body());
        seen = lines(later.body());
        assertEquals("/", seen.get("path"));
        assertEquals("other=1", seen.get("cookie"), "the proxy's cookie stays with the proxy");
        assertEquals(INTERNAL_A, seen.get("key"));
        assertFalse(later.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.startsWith("dockyard_tkn")));
    }

    @Test
    void shouldGiveVsCodeItsWholePathAndTheInternalToken() throws Exception {
        HttpResponse<String> r = send(get(A + "/vscode/echo?tkn=" + PUBLIC_A + "&folder=%2Fworkspace%2Fproject")
                .header("Cookie", "vscode-tkn=" + PUBLIC_A));
        assertEquals(200, r.statusCode(), r.body());
        Map<String, String> seen = lines(r.body());
        assertEquals("/" + A + "/vscode/echo", seen.get("path"));
        assertEquals("tkn=" + INTERNAL_A + "&folder=%2Fworkspace%2Fproject", seen.get("query"));
        assertEquals("vscode-tkn=" + INTERNAL_A, seen.get("cookie"));
        assertTrue(r.headers().allValues("Set-Cookie").contains("vscode-tkn=" + PUBLIC_A + "; Path=" + contextPath() + "/"
                + A + "; HttpOnly"), r.headers().map().toString());
        assertNoInternalKey(r);
        assertEquals("/" + A + "/vscode", lines(send(get(A + "/vscode").header("X-Session-API-Key", PUBLIC_A)).body())
                .get("path"));
    }

    @Test
    void shouldHandOutTheVsCodeTokenAsThePublicKey() throws Exception {
        // the legacy action server answers with its own key; clients put it in VS Code URLs as ?tkn=
        HttpResponse<String> r = send(get(A + "/vscode/connection_token").header("X-Session-API-Key", PUBLIC_A));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("{\"token\": \"" + PUBLIC_A + "\"}", r.body());
        assertEquals(String.valueOf(r.body().length()), r.headers().firstValue("Content-Length").orElseThrow());
    }

    @Test
    void shouldPointRedirectsToTheSandboxAtTheProxy() throws Exception {
        HttpResponse<String> r = send(get(A + "/redirect").header("X-Session-API-Key", PUBLIC_A));
        assertEquals(302, r.statusCode());
        assertEquals(contextPath() + "/" + A + "/page?from=redirect", r.headers().firstValue("Location").orElseThrow());
    }

    @Test
    void shouldStreamTenMegabytesWholeAndFast() throws Exception {
        String expected = SandboxHttpServer.sha256(SandboxHttpServer.bigBody());
        HttpRequest proxied = get(A + "/big").header("X-Session-API-Key", PUBLIC_A).build();
        HttpRequest direct = HttpRequest.newBuilder(URI.create(http.uri() + "/big")).build();
        client.send(proxied, HttpResponse.BodyHandlers.discarding()); // warm up both paths
        client.send(direct, HttpResponse.BodyHandlers.discarding());
        clearTraffic();

        long t0 = System.nanoTime();
        HttpResponse<byte[]> viaProxy = client.send(proxied, HttpResponse.BodyHandlers.ofByteArray());
        long proxiedMillis = (System.nanoTime() - t0) / 1_000_000;
        t0 = System.nanoTime();
        HttpResponse<byte[]> straight = client.send(direct, HttpResponse.BodyHandlers.ofByteArray());
        long directMillis = (System.nanoTime() - t0) / 1_000_000;

        assertEquals(200, viaProxy.statusCode());
        assertEquals(SandboxHttpServer.BIG, viaProxy.body().length);
        assertEquals(expected, SandboxHttpServer.sha256(viaProxy.body()));
        assertEquals(expected, SandboxHttpServer.sha256(straight.body()));
        assertEquals(String.valueOf(SandboxHttpServer.BIG), viaProxy.headers().firstValue("Content-Length").orElseThrow());
        System.out.printf("[proxy] 10 MB: %d ms through the proxy, %d ms direct%n", proxiedMillis, directMillis);
        assertTrue(proxiedMillis < 5_000, "10 MB took " + proxiedMillis + " ms");
        awaitTraffic(A + " main false 0 " + SandboxHttpServer.BIG);
    }

    @Test
    void shouldAddLittleLatencyToSmallRequests() throws Exception {
        clearTraffic();
        HttpRequest liberty = HttpRequest.newBuilder(base.toURI().resolve("proxy-test/ping")).build(); // no proxy
        HttpRequest proxied = get(A + "/page").header("X-Session-API-Key", PUBLIC_A).build();
        HttpRequest direct = HttpRequest.newBuilder(URI.create(http.uri() + "/page")).build();
        long libertyMicros = averageMicros(liberty, 200, 500);
        long proxiedMicros = averageMicros(proxied, 200, 500);
        long directMicros = averageMicros(direct, 200, 500);
        System.out.printf("[proxy] small GET: %d us through the proxy, %d us direct, %d us for a plain servlet of the"
                + " same server: the proxy adds %d us to what Liberty and the sandbox take%n", proxiedMicros,
                directMicros, libertyMicros, proxiedMicros - directMicros - libertyMicros);
        assertTrue(proxiedMicros < 50_000, "a small request took " + proxiedMicros + " us");
    }

    private long averageMicros(HttpRequest request, int warmUp, int n) throws Exception {
        for (int i = 0; i < warmUp; i++) {
            client.send(request, HttpResponse.BodyHandlers.discarding());
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            assertEquals(200, client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        return (System.nanoTime() - t0) / 1000 / n;
    }

    @Test
    void shouldStreamAnUploadToTheSandbox() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024];
        Arrays.fill(body, (byte) 7);
        clearTraffic();
        HttpResponse<String> r = send(get(A + "/upload").header("X-Session-API-Key", PUBLIC_A)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(body.length + " " + SandboxHttpServer.sha256(body), r.body());
        awaitTraffic(A + " main false " + body.length + " ");
    }

    @Test
    void shouldDeliverEventsAsTheSandboxProducesThem() throws Exception {
        http.firstEventSeen = new CountDownLatch(1);
        HttpResponse<InputStream> r = client.send(get(A + "/events").header("X-Session-API-Key", PUBLIC_A).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        try (BufferedReader events = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> readLine(events));
            assertEquals("data: first", first.get(10, TimeUnit.SECONDS), "the first event arrives before the second is sent");
            http.firstEventSeen.countDown();
            assertEquals("", events.readLine());
            assertEquals("data: second", events.readLine());
        }
    }

    @Test
    void shouldTunnelWebSocketMessagesBothWays() throws Exception {
        clearTraffic();
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        CompletableFuture<Integer> closed = new CompletableFuture<>();
        WebSocket socket = client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A)
                .buildAsync(wsUri(A + "/work-2/socket?x=1&tkn=" + PUBLIC_A), listener(received, closed))
                .get(10, TimeUnit.SECONDS);
        try {
            exchangeMessages(socket, received, closed);
        } finally {
            socket.abort();
        }
        String report = awaitTraffic(A + " work-2 true ");
        String[] parts = report.split(" ");
        long in = Long.parseLong(parts[3]);
        long out = Long.parseLong(parts[4]);
        // frames: client frames are masked (+4 bytes); 3 texts and a close went in, 4 texts and a close came out
        assertTrue(in >= 30_000 + 3 + 3 && in < 31_000, "bytes in: " + report);
        assertTrue(out >= 30_006 + 5 + 9 + 9 && out < 31_000, "bytes out: " + report);
    }

    private void exchangeMessages(WebSocket socket, BlockingQueue<String> received, CompletableFuture<Integer> closed)
            throws Exception {
        assertEquals("hello", received.poll(10, TimeUnit.SECONDS), "the sandbox's first message");
        socket.sendText("one", true).get(5, TimeUnit.SECONDS);
        assertEquals("echo: one", received.poll(10, TimeUnit.SECONDS));
        String large = "x".repeat(30_000);
        socket.sendText(large, true).get(5, TimeUnit.SECONDS);
        String echoed = received.poll(10, TimeUnit.SECONDS);
        assertTrue(("echo: " + large).equals(echoed), "the 30 000 characters come back whole: "
                + (echoed == null ? null : echoed.length() + " characters"));
        socket.sendText("two", true).get(5, TimeUnit.SECONDS);
        assertEquals("echo: two", received.poll(10, TimeUnit.SECONDS));
        assertEquals(INTERNAL_A, ws.lastKey);
        assertEquals("/socket?x=1", ws.lastPath);

        socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
        assertEquals(WebSocket.NORMAL_CLOSURE, closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldTunnelForABrowserSignedInByCookie() throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        WebSocket socket = client.newWebSocketBuilder().header("Cookie", "dockyard_tkn=" + PUBLIC_A)
                .buildAsync(wsUri(A + "/work-2/"), listener(received, new CompletableFuture<>()))
                .get(10, TimeUnit.SECONDS);
        try {
            assertEquals("hello", received.poll(10, TimeUnit.SECONDS));
            socket.sendText("three", true).get(5, TimeUnit.SECONDS);
            assertEquals("echo: three", received.poll(10, TimeUnit.SECONDS));
            assertEquals(INTERNAL_A, ws.lastKey);
        } finally {
            socket.abort(); // a client that just goes away: the tunnel closes all the same
        }
    }

    @Test
    void shouldCloseTheClientsSocketWhenTheSandboxGoesAway() throws Exception {
        clearTraffic();
        CompletableFuture<Integer> closed = new CompletableFuture<>();
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        WebSocket socket = client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A)
                .buildAsync(wsUri(A + "/work-2/socket"), listener(received, closed)).get(10, TimeUnit.SECONDS);
        try {
            assertEquals("hello", received.poll(10, TimeUnit.SECONDS));
            socket.sendText("drop", true).get(5, TimeUnit.SECONDS); // the service drops the connection, no close frame
            assertEquals(1001, closed.get(5, TimeUnit.SECONDS), "the proxy says the service went away");
        } finally {
            socket.abort();
        }
        // the masked "drop" in (10 bytes), "hello" out (7); the client's echo of the proxy's close (8 bytes
        // masked, its code only) is counted too when it reaches the proxy before the session ends
        String report = awaitTraffic(A + " work-2 true ");
        assertTrue(report.startsWith(A + " work-2 true 10 7") || report.startsWith(A + " work-2 true 18 7"), report);
    }

    @Test
    void shouldRefuseWebSocketsWithoutTheKey() throws Exception {
        assertEquals(401, handshakeStatus(client.newWebSocketBuilder(), A + "/work-2/socket"));
        assertEquals(401, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_B),
                A + "/work-2/socket"));
        assertEquals(503, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A),
                PAUSED + "/socket"));
        // the health paths' exemption is for probes, not for tunnels (issue 26, item 4)
        for (String health : List.of("/alive", "/health", "/ready", "/server_info")) {
            assertEquals(401, handshakeStatus(client.newWebSocketBuilder(), A + health), health);
        }
    }

    @Test
    void shouldRelayAServiceThatRefusesTheUpgrade() throws Exception {
        assertEquals(403, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A),
                A + "/work-2/refuse"));
        // a program's port that is not listening; the main service not listening is a runtime being recovered
        assertEquals(502, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A),
                UNREACHABLE + "/work-1/socket"));
        assertEquals(503, handshakeStatus(client.newWebSocketBuilder().header("X-Session-API-Key", PUBLIC_A),
                UNREACHABLE + "/socket"));
    }

    @Test
    void shouldLeaveEveryOtherPathAlone() throws Exception {
        HttpResponse<String> api = send(HttpRequest.newBuilder(base.toURI().resolve("api/v1/users/me")));
        assertEquals(401, api.statusCode());
        assertTrue(api.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                "the API answers as ever: " + api.headers().map());
        // not a service URL: the server's own not-found problem, not the proxy's
        assertServerNotFound(send(HttpRequest.newBuilder(base.toURI().resolve("rt-0000/echo"))));
        assertServerNotFound(send(HttpRequest.newBuilder(base.toURI().resolve("rt-00000000000000A1/echo"))));
    }

    @Test
    void shouldServeRuntimesOnTheirOwnPortAndNothingElseThere() throws Exception {
        // a runtime's path on the API's port: never served there, whatever key comes along
        HttpResponse<String> onApi = send(HttpRequest.newBuilder(base.toURI().resolve(A + "/echo"))
                .header("X-Session-API-Key", PUBLIC_A));
        assertEquals(404, onApi.statusCode(), onApi.body());
        assertTrue(onApi.body().contains("their own port (" + proxyPort() + ")"), onApi.body());
        assertFalse(onApi.body().contains(INTERNAL_A), onApi.body());
        // the API and the console on the services' port: not there
        for (String path : new String[] {"api/v1/users/me", "console/", "runtime-api/list", "proxy-test/ping", ""}) {
            HttpResponse<String> onProxy = send(get(path).header("X-API-Key", "arquillian-admin-key"));
            assertEquals(404, onProxy.statusCode(), path + ": " + onProxy.body());
            assertEquals("{\"detail\":\"Not a runtime's service URL\"}", onProxy.body(), path);
        }
    }

    @Test
    void shouldTakeTheCookieForReadingOnly() throws Exception {
        String cookie = "dockyard_tkn=" + PUBLIC_A;
        assertStatus(200, send(get(A + "/echo").header("Cookie", cookie)));
        for (String method : new String[] {"POST", "PUT", "DELETE"}) {
            HttpResponse<String> r = send(get(A + "/echo").header("Cookie", cookie)
                    .method(method, HttpRequest.BodyPublishers.ofString("{}")));
            assertEquals(401, r.statusCode(), method + ": " + r.body());
        }
        assertStatus(200, send(get(A + "/echo").header("X-Session-API-Key", PUBLIC_A)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))));
        // a WebSocket signed in by the cookie opens from the runtime's own pages only
        assertEquals(403, handshakeStatus(client.newWebSocketBuilder().header("Cookie", cookie)
                .header("Origin", "http://" + base.getAuthority()), A + "/work-2/echo"));
        WebSocket own = client.newWebSocketBuilder().header("Cookie", cookie).header("Origin", "http://" + proxyAuthority())
                .buildAsync(wsUri(A + "/work-2/echo"), new WebSocket.Listener() {
                }).get(10, TimeUnit.SECONDS);
        own.abort();
    }

    @Test
    void shouldSendEveryAnswerWithNoSniffingAndPathModesSandboxPolicy() throws Exception {
        HttpResponse<String> r = send(get(A + "/page").header("X-Session-API-Key", PUBLIC_A));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(List.of("nosniff"), r.headers().allValues("X-Content-Type-Options"));
        String policy = String.join(", ", r.headers().allValues("Content-Security-Policy"));
        assertTrue(policy.startsWith("sandbox allow-scripts") && !policy.contains("allow-same-origin"), policy);
    }

    @Test
    void shouldNameTheRuntimeByItsHostInSubdomainMode() throws Exception {
        String host = A + ".dy.test:" + proxyPort();
        RawAnswer r = raw(host, contextPath() + "/echo?x=1", "X-Session-API-Key: " + PUBLIC_A);
        assertEquals(200, r.status(), r.toString());
        Map<String, String> seen = lines(r.body());
        assertEquals(INTERNAL_A, seen.get("key"));
        assertEquals("/echo", seen.get("path"));
        assertEquals(host, seen.get("forwarded-host"));
        assertTrue(r.headers().contains("set-cookie: vscode-tkn=" + PUBLIC_A + "; path=" + contextPath() + "/; httponly"),
                r.toString());
        assertFalse(r.headers().contains("content-security-policy"), "an origin of its own needs no sandbox: " + r);
        // the host decides: a path naming runtime B under A's host is a path of A's service
        RawAnswer underA = raw(host, contextPath() + "/" + B + "/echo", "X-Session-API-Key: " + PUBLIC_B);
        assertEquals(401, underA.status(), underA.toString());
        // a worker's host, and a key for another runtime
        RawAnswer worker = raw("work-1-" + A + ".dy.test:" + proxyPort(), contextPath() + "/echo",
                "X-Session-API-Key: " + PUBLIC_A);
        assertEquals(200, worker.status(), worker.toString());
        assertEquals(contextPath().isEmpty() ? "null" : contextPath(), lines(worker.body()).get("prefix"),
                "nothing of the path was the runtime's");
        assertEquals(401, raw(B + ".dy.test:" + proxyPort(), contextPath() + "/echo", "X-Session-API-Key: " + PUBLIC_A)
                .status());
        // on its own host the cookie signs in a write from the runtime's own page, and from no other
        String cookie = "Cookie: dockyard_tkn=" + PUBLIC_A;
        assertEquals(200, rawRequest("POST", host, contextPath() + "/echo", cookie, "Origin: http://" + host,
                "Content-Length: 0").status());
        assertEquals(401, rawRequest("POST", host, contextPath() + "/echo", cookie,
                "Origin: http://" + B + ".dy.test:" + proxyPort(), "Content-Length: 0").status());
        assertEquals(401, rawRequest("POST", host, contextPath() + "/echo", cookie, "Content-Length: 0").status());
    }

    // --- helpers

    private void target(String id, String state, String publicKey, String internalKey, Map<String, URI> services)
            throws Exception {
        StringBuilder body = new StringBuilder("state=" + state + "\npublicKey=" + publicKey + "\ninternalKey=" + internalKey + "\n");
        services.forEach((name, uri) -> body.append("service.").append(name).append('=')
                .append(uri.toString().replace(":", "\\:")).append('\n'));
        HttpResponse<String> r = send(HttpRequest.newBuilder(base.toURI().resolve("proxy-test/targets/" + id))
                .PUT(HttpRequest.BodyPublishers.ofString(body.toString())));
        assertEquals(204, r.statusCode(), r.body());
    }

    private void clearTraffic() throws Exception {
        send(HttpRequest.newBuilder(base.toURI().resolve("proxy-test/traffic")).DELETE());
    }

    /** The first traffic report that starts with this, waiting a little for it. */
    private String awaitTraffic(String prefix) throws Exception {
        List<String> reports = List.of();
        for (int i = 0; i < 100; i++) {
            reports = send(HttpRequest.newBuilder(base.toURI().resolve("proxy-test/traffic"))).body().lines().toList();
            for (String report : reports) {
                if (report.startsWith(prefix)) {
                    return report;
                }
            }
            Thread.sleep(100);
        }
        return fail("no traffic report starting with '" + prefix + "' in " + reports);
    }

    /** A request to the services' port (server.xml of the test server: dockyard.proxy.port). */
    private HttpRequest.Builder get(String pathInContext) throws Exception {
        return HttpRequest.newBuilder(proxied(pathInContext)).timeout(Duration.ofSeconds(30));
    }

    private URI wsUri(String pathInContext) throws Exception {
        return URI.create(proxied(pathInContext).toString().replaceFirst("^http", "ws"));
    }

    private URI proxied(String pathInContext) throws Exception {
        URI api = base.toURI();
        return new URI(api.getScheme(), null, api.getHost(), proxyPort(), api.getPath(), null, null).resolve(pathInContext);
    }

    private static int proxyPort() {
        return 19181;
    }

    private String proxyAuthority() {
        return base.getHost() + ":" + proxyPort();
    }

    /** An answer read off a raw socket: its status, its header lines in lower case, its body. */
    record RawAnswer(int status, String headers, String body) {
    }

    /** A GET with a Host header of the test's choosing (the JDK client sets its own), over a socket. */
    private RawAnswer raw(String host, String path, String... headerLines) throws IOException {
        return rawRequest("GET", host, path, headerLines);
    }

    private RawAnswer rawRequest(String method, String host, String path, String... headerLines) throws IOException {
        try (Socket socket = new Socket(base.getHost(), proxyPort())) {
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
            for (String line : headerLines) {
                request.append(line).append("\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            byte[] answer = socket.getInputStream().readAllBytes();
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            byte[] rest = end < 0 ? new byte[0] : Arrays.copyOfRange(answer, end + 4, answer.length);
            String body = new String(head.toLowerCase().contains("transfer-encoding: chunked")
                    ? new ChunkedInputStream(new ByteArrayInputStream(rest)).readAllBytes() : rest, StandardCharsets.UTF_8);
            int status = Integer.parseInt(head.substring(9, 12));
            return new RawAnswer(status, head.toLowerCase(), body);
        }
    }

    private String contextPath() {
        String path = base.getPath();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int handshakeStatus(WebSocket.Builder builder, String pathInContext) throws Exception {
        try {
            WebSocket socket = builder.buildAsync(wsUri(pathInContext), new WebSocket.Listener() {
            }).get(10, TimeUnit.SECONDS);
            socket.abort();
            return fail("the handshake went through");
        } catch (ExecutionException e) {
            assertInstanceOf(WebSocketHandshakeException.class, e.getCause(), e.toString());
            return ((WebSocketHandshakeException) e.getCause()).getResponse().statusCode();
        }
    }

    private static WebSocket.Listener listener(BlockingQueue<String> received, CompletableFuture<Integer> closed) {
        return new WebSocket.Listener() {
            private final StringBuilder message = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                message.append(data);
                if (last) {
                    received.add(message.toString());
                    message.setLength(0);
                }
                socket.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket socket, int statusCode, String reason) {
                closed.complete(statusCode);
                return null;
            }

            @Override
            public void onError(WebSocket socket, Throwable error) {
                closed.completeExceptionally(error);
            }
        };
    }

    private static void assertStatus(int expected, HttpResponse<String> r) {
        assertEquals(expected, r.statusCode(), r.body());
        if (r.statusCode() >= 400 && (r.statusCode() != 404 || r.body().startsWith("{"))) {
            assertTrue(r.body().startsWith("{\"detail\":"), r.body());
        }
    }

    private static void assertServerNotFound(HttpResponse<String> r) {
        assertEquals(404, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                "the server's error page answers: " + r.headers().map());
        assertTrue(r.body().contains("\"type\":\"https://dockyard.dev/problems/not-found\""), r.body());
    }

    private static void assertNoInternalKey(HttpResponse<?> r) {
        r.headers().map().forEach((name, values) -> values.forEach(v ->
                assertFalse(v.contains(INTERNAL_A), name + " carries the internal key")));
    }

    private static Map<String, String> lines(String body) {
        Map<String, String> map = new HashMap<>();
        body.lines().forEach(l -> {
            int eq = l.indexOf('=');
            map.put(l.substring(0, eq), l.substring(eq + 1));
        });
        return map;
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
