package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.ForeignImage;
import it.dev.dockyard.support.RawHttp;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A foreign image (not Dockyard's: {@link ForeignImage}, built offline here) started through {@code POST
 * /runtime-api/start} and reached only through the control plane's proxy at the runtime's {@code url}: the main port
 * 60000 at {@code url}, 12000 and 12001 at {@code {url}/work-1} and {@code {url}/work-2} (prefix stripped), 60001 at
 * {@code {url}/vscode} (path kept), with the public session key in {@code X-Session-API-Key} (every OpenHands client:
 * "{@code headers={'X-Session-API-Key': runtime['session_api_key']}}", remote_sandbox_service.py at OpenHands/OpenHands
 * {@code d6fab190bfb55f07cc380993b45ec4f781706a92}) or {@code ?tkn=} then a cookie (the app server's VS Code URL in
 * path mode: "{@code _build_service_url(url, 'vscode', runtime_id)
 * + f'?tkn={session_api_key}&folder=%2Fworkspace%2Fproject'}",
 * same file at commit {@code 029f823357abdadb4075089c1b5572f1ce56f392}).
 *
 * <p>Two runtimes of one user (so that one runtime's key can be tried on the other). The sandbox checks the key it
 * receives against its {@code $SESSION_API_KEY} as the agent server does, so a 200 from a keyed path means the proxy
 * handed over the sandbox's internal key; its request log ({@code /seen}) shows what it never received. The tests are
 * ordered only so that the last one looks at everything the sandbox received during all of them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ForeignImageThroughProxyIT {

    private static String image;
    private static RuntimeApi.User user;
    private static String oneId;
    private static String twoId;
    private static JsonObject one;
    private static JsonObject two;

    @BeforeAll
    static void startTwoRuntimes() {
        image = ForeignImage.build();
        user = RuntimeApi.newUser("rtapi-foreign");
        String oneSession = RuntimeApi.appServerSessionId();
        String twoSession = RuntimeApi.appServerSessionId();
        oneId = user.runtimes().started(Json.createObjectBuilder()
                .add("image", image)
                .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))
                .add("working_dir", "/opt/it-cwd")
                .add("environment", Json.createObjectBuilder().add("IT_ENV", "from environment")
                        .add("IT_SPACED", "a b  c"))
                .add("session_id", oneSession)
                .add("resource_factor", 1)
                .add("run_as_user", 10001)
                .add("run_as_group", 10002)
                .add("fs_group", 10001)
                .build()).getString("runtime_id");
        twoId = user.runtimes().started(Json.createObjectBuilder()
                .add("image", image)
                .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))
                .add("working_dir", "/srv")
                .add("environment", Json.createObjectBuilder())
                .add("session_id", twoSession)
                .add("resource_factor", 1)
                .add("run_as_user", 10003)
                .add("run_as_group", 10003)
                .add("fs_group", 10003)
                .build()).getString("runtime_id");
        one = user.runtimes().awaitRunning(oneSession);
        two = user.runtimes().awaitRunning(twoSession);
    }

    @AfterAll
    static void stopAndRemove() {
        try {
            if (user != null) {
                RuntimeApi.cleanUp(user, oneId);
                RuntimeApi.cleanUp(user, twoId);
                for (String id : new String[] {oneId, twoId}) {
                    if (id != null) {
                        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                                .until(() -> DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id).isEmpty());
                    }
                }
            }
        } finally {
            ForeignImage.remove(image);
        }
    }

    private static String url(JsonObject runtime) {
        return runtime.getString("url");
    }

    private static String key(JsonObject runtime) {
        return runtime.getString("session_api_key");
    }

    private static JsonObject whoami(JsonObject runtime) {
        HttpResponse<String> answer = ThroughUrl.get(url(runtime) + "/whoami", key(runtime));
        assertEquals(200, answer.statusCode(), answer.body());
        return DockyardApi.parse(answer.body());
    }

    private static String page(HttpResponse<String> answer, String title) {
        assertEquals(200, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains("<title>" + title + "</title>"), answer.body());
        return answer.body();
    }

    @Test
    @Order(1)
    void shouldServeEveryPortThroughItsRouteWithTheSessionKey() {
        String url = url(one);
        assertEquals(200, ThroughUrl.get(url + "/whoami", key(one)).statusCode());
        assertTrue(page(ThroughUrl.get(url + "/work-1/sub/page?x=1", key(one)), "work-1")
                .contains("target=/sub/page?x=1"), "the /work-1 prefix is stripped");
        assertTrue(page(ThroughUrl.get(url + "/work-2/", key(one)), "work-2").contains("target=/<"),
                "the /work-2 prefix is stripped");
        assertTrue(page(ThroughUrl.get(url + "/vscode/static/app.js?v=1", key(one)), "vscode")
                .contains("target=/" + oneId + "/vscode/static/app.js?v=1"), "the /vscode path is kept");
        // work_hosts name routes that work: each to its port
        Map<String, String> titles = Map.of("12000", "work-1", "12001", "work-2");
        one.getJsonObject("work_hosts").forEach((host, port) ->
                page(ThroughUrl.get(host + "/", key(one)), titles.get(port.toString())));
        // the legacy runtime sends X-API-Key to the sandbox as well (one httpx session for both): no harm
        assertEquals(200, ThroughUrl.get(url + "/whoami", key(one), Map.of("X-API-Key", user.apiKey()))
                .statusCode());
    }

    @Test
    @Order(2)
    void shouldPassHealthPathsWithoutAKeyAndRefuseEverythingElse() {
        String url = url(one);
        for (String health : List.of("/alive", "/health", "/ready", "/server_info")) {
            assertEquals(200, ThroughUrl.get(url + health, null).statusCode(), health);
        }
        String internalKey = whoami(one).getString("env_key");
        String marker = "refused-" + UUID.randomUUID();
        List<String> wrongKeys = new ArrayList<>();
        wrongKeys.add(null);
        wrongKeys.add(key(two));
        wrongKeys.add(internalKey);
        wrongKeys.add(user.apiKey());
        wrongKeys.add(key(one).substring(0, key(one).length() - 1));
        for (String wrong : wrongKeys) {
            for (String path : List.of("/whoami?" + marker, "/work-1/?" + marker, "/work-2/?" + marker,
                    "/vscode/?" + marker)) {
                HttpResponse<String> refused = ThroughUrl.get(url + path, wrong);
                assertEquals(401, refused.statusCode(), path + " with " + describe(wrong) + ": " + refused.body());
            }
        }
        assertEquals(401, ThroughUrl.get(url(two) + "/whoami?" + marker, key(one)).statusCode(),
                "one runtime's key on the other");
        String seen = ThroughUrl.get(url + "/seen", key(one)).body();
        assertFalse(seen.contains(marker), "a refused request reached the sandbox: " + seen);
    }

    private String describe(String wrong) {
        if (wrong == null) {
            return "no key";
        }
        if (wrong.equals(key(two))) {
            return "the other runtime's key";
        }
        if (wrong.equals(user.apiKey())) {
            return "the user's API key";
        }
        return wrong.length() == key(one).length() - 1 ? "a truncated key" : "the internal key";
    }

    @Test
    @Order(3)
    void shouldLetATknQueryParameterInAndThenItsCookie() {
        String url = url(one);
        // the app server's VS Code URL: {url}/vscode?tkn={session_api_key}&folder=%2Fworkspace%2Fproject
        Entered vscode = enterWithTkn(url + "/vscode?tkn=" + RuntimeApi.encode(key(one))
                + "&folder=%2Fworkspace%2Fproject");
        assertTrue(page(vscode.page(), "vscode").contains("target=/" + oneId + "/vscode"), vscode.page().body());
        Entered work = enterWithTkn(url + "/work-1/first?tkn=" + RuntimeApi.encode(key(one)));
        assertTrue(page(work.page(), "work-1").contains("target=/first"), work.page().body());
        assertTrue(page(ThroughUrl.get(url + "/work-1/second", null, Map.of("Cookie", work.cookie())), "work-1")
                .contains("target=/second"), "the cookie alone lets in");
        assertEquals(401, ThroughUrl.get(url + "/work-1/third", null).statusCode(), "neither key nor cookie");
        assertEquals(401, ThroughUrl.get(url + "/work-1/fourth?tkn=" + RuntimeApi.encode(key(two)), null)
                .statusCode(), "the other runtime's key as tkn");
        assertEquals(401, ThroughUrl.get(url(two) + "/work-1/fifth", null, Map.of("Cookie", work.cookie()))
                .statusCode(), "one runtime's cookie on the other");
    }

    /** A page reached with {@code ?tkn=}, and the cookie that came with it. */
    private record Entered(HttpResponse<String> page, String cookie) {
    }

    /**
     * GET with {@code ?tkn=} and no header; the proxy answers the page at once or first redirects (to drop tkn from
     * the address): one redirect is followed with the cookie it set.
     */
    private static Entered enterWithTkn(String target) {
        HttpResponse<String> first = ThroughUrl.get(target, null);
        String cookie = ThroughUrl.cookies(first);
        assertFalse(cookie.isBlank(), "tkn= sets a cookie: " + first.statusCode() + " " + first.headers().map());
        if (first.statusCode() / 100 != 3) {
            return new Entered(first, cookie);
        }
        String location = first.headers().firstValue("Location").orElseThrow(() ->
                new AssertionError("a redirect without Location: " + first.headers().map()));
        HttpResponse<String> followed = ThroughUrl.get(URI.create(target).resolve(location).toString(), null,
                Map.of("Cookie", cookie));
        return new Entered(followed, cookie);
    }

    @Test
    @Order(4)
    void shouldRunTheCommandAsTheRequestedUserInTheRequestedDirectoryWithTheEnvironment() {
        JsonObject who = whoami(one);
        assertEquals(10001, who.getInt("uid"), who.toString());
        assertEquals(10002, who.getInt("gid"), who.toString());
        assertEquals("/opt/it-cwd", who.getString("cwd"), who.toString());
        JsonObject env = who.getJsonObject("env");
        assertEquals("from environment", env.getString("IT_ENV"), who.toString());
        assertEquals("a b  c", env.getString("IT_SPACED"), who.toString());
        assertEquals(oneId, env.getString("RUNTIME_ID"), who.toString());
        assertEquals(url(one), env.getString("RUNTIME_URL"), who.toString());
        JsonObject other = whoami(two);
        assertEquals(10003, other.getInt("uid"), other.toString());
        assertEquals(10003, other.getInt("gid"), other.toString());
        assertEquals("/srv", other.getString("cwd"), other.toString());
        assertFalse(other.getJsonObject("env").containsKey("IT_ENV"), "one runtime's environment only");
    }

    @Test
    @Order(5)
    void shouldHandTheSandboxItsInternalKeyInPlaceOfThePublicOne() {
        JsonObject who = whoami(one);
        String received = who.getString("key");
        assertEquals(who.getString("env_key"), received, "the sandbox receives its $SESSION_API_KEY");
        assertEquals(who.getString("env_key"), who.getString("oh_key"), "OH_SESSION_API_KEYS_0 = SESSION_API_KEY");
        assertNotEquals(key(one), received, "the public key is swapped for the internal one");
        assertFalse(received.isBlank());
        assertNotEquals(received, whoami(two).getString("env_key"), "each runtime has its own internal key");
    }

    @Test
    @Order(6)
    void shouldStreamTenMegabytesWhole() {
        ThroughUrl.Streamed big = ThroughUrl.stream(url(one) + "/big", key(one));
        assertEquals(200, big.status());
        assertEquals(ForeignImage.BIG_SIZE, big.length());
        assertEquals(ForeignImage.bigSha256(), big.sha256());
    }

    @Test
    @Order(7)
    void shouldEchoWebSocketMessagesBothWays() throws Exception {
        String target = ThroughUrl.webSocketUrl(url(one)) + "/ws";
        assertEquals(RuntimeApi.SERVICES_URL.replaceFirst("^http", "ws") + "/" + oneId + "/ws", target);
        ThroughUrl.Socket socket = ThroughUrl.Socket.open(target, key(one));
        assertEquals("ready:10001", socket.next(), "a message from the sandbox");
        socket.send("hello");
        assertEquals("echo:hello", socket.next());
        socket.send("grüße ✓");
        assertEquals("echo:grüße ✓", socket.next());
        String large = "x".repeat(100_000);
        socket.send(large);
        assertEquals("echo:" + large, socket.next(), "a 100 kB message (64-bit length) both ways");
        assertEquals(1000, socket.close());

        for (String wrong : new String[] {null, key(two)}) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> ThroughUrl.Socket.open(target, wrong));
            assertTrue(refused.getCause() instanceof WebSocketHandshakeException, refused.toString());
            assertEquals(401, ((WebSocketHandshakeException) refused.getCause()).getResponse().statusCode());
        }

        // no key on the handshake: the client signs in with its first message, as OpenHands' SDK opens the
        // agent server's event stream (remote_conversation.py: {"type": "auth", "session_api_key": …})
        String events = ThroughUrl.webSocketUrl(url(one)) + "/sockets/events/c1";
        ThroughUrl.Socket keyless = ThroughUrl.Socket.open(events, null);
        assertNull(keyless.poll(Duration.ofSeconds(1)), "nothing of the sandbox's before the client signed in");
        keyless.send("hello");
        assertEquals(4001, keyless.closedWith(), "not a sign-in: closed with the agent server's code");
        ThroughUrl.Socket signedIn = ThroughUrl.Socket.open(events, null);
        signedIn.send("{\"type\": \"auth\", \"session_api_key\": \"" + key(one) + "\"}");
        assertEquals("ready:10001", signedIn.next(), "the sandbox's first message, held until the sign-in");
        assertEquals("signed-in", signedIn.next(), "the sandbox got its own key in the message, not the client's");
        signedIn.send("after");
        assertEquals("echo:after", signedIn.next());
        assertEquals(1000, signedIn.close());
        ThroughUrl.Socket otherKey = ThroughUrl.Socket.open(events, null);
        otherKey.send("{\"type\": \"auth\", \"session_api_key\": \"" + key(two) + "\"}");
        assertEquals(4001, otherKey.closedWith(), "another runtime's key");
        assertNull(otherKey.poll(Duration.ofMillis(200)));
        // the service's own refusal of a keyless handshake (400 here: no Sec-WebSocket-Key) never reaches the client
        RawHttp.Answer unsigned = new RawHttp(URI.create(url(one)).getPort()).send("GET "
                + URI.create(url(one)).getRawPath() + "/sockets/events/c1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n", new byte[0]);
        assertEquals(401, unsigned.status(), unsigned.body());
        assertFalse(unsigned.body().contains("not a WebSocket upgrade"), unsigned.body());
        // the health paths need no key for a probe, but a tunnel to one is a tunnel to the port (issue 26, item 4)
        for (String health : List.of("/alive", "/health", "/ready", "/server_info")) {
            String healthTarget = ThroughUrl.webSocketUrl(url(one)) + health;
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> ThroughUrl.Socket.open(healthTarget, null), health);
            assertTrue(refused.getCause() instanceof WebSocketHandshakeException, refused.toString());
            assertEquals(401, ((WebSocketHandshakeException) refused.getCause()).getResponse().statusCode(), health);
        }
        RawHttp.Answer raw = new RawHttp(URI.create(url(one)).getPort()).send("GET "
                + URI.create(url(one)).getRawPath() + "/alive HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n",
                new byte[0]);
        assertEquals(401, raw.status(), "an upgrade of /alive without a key: " + raw.body());
    }

    @Test
    @Order(8)
    void shouldKeepTheKeysOutOfDockerInspect() {
        List<String> keys = List.of(key(one), key(two), whoami(one).getString("env_key"),
                whoami(two).getString("env_key"));
        for (String id : List.of(oneId, twoId)) {
            List<String> containers = DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id);
            assertEquals(1, containers.size(), "one container for " + id + ": " + containers);
            String inspect = DockerCli.ok("inspect", containers.get(0));
            for (String key : keys) {
                assertFalse(inspect.contains(key), "a session key in docker inspect of " + containers.get(0));
            }
            String env = DockerCli.inspect(containers.get(0), "{{json .Config.Env}}");
            for (String name : List.of("SESSION_API_KEY", "OH_SESSION_API_KEYS_0")) {
                assertFalse(env.matches("(?s).*\"" + name + "=[^\"]+\".*"), name + " with a value in " + env);
            }
            DockyardApi.Answer own = user.dockyard().get("runtimes/" + id);
            assertEquals(200, own.status(), own.body());
            assertEquals("READY", own.json().getString("status"), own.body());
        }
    }

    /** Last: everything the sandboxes received during all the tests above. */
    @Test
    @Order(9)
    void shouldNeverHaveShownTheSandboxThePublicKeyOrTheUsersApiKey() {
        for (JsonObject runtime : List.of(one, two)) {
            HttpResponse<String> answer = ThroughUrl.get(url(runtime) + "/seen", key(runtime));
            assertEquals(200, answer.statusCode(), answer.body());
            List<JsonObject> seen = RuntimeApi.array(answer.body()).getValuesAs(JsonObject.class);
            assertTrue(seen.size() > 3, "the sandbox's request log: " + answer.body());
            List<String> everything = new ArrayList<>();
            for (JsonObject request : seen) {
                everything.add(request.getString("target"));
                request.getJsonArray("headers").getValuesAs(JsonValue::asJsonArray).forEach(h ->
                        h.getValuesAs(JsonString.class).forEach(s -> everything.add(s.getString())));
            }
            for (String text : everything) {
                assertFalse(text.contains(key(one)) || text.contains(key(two)), "a public session key reached the "
                        + "sandbox of " + runtime.getString("runtime_id") + ": " + text);
                assertFalse(text.contains(user.apiKey()), "the user's Dockyard API key reached the sandbox of "
                        + runtime.getString("runtime_id") + ": " + text);
            }
        }
    }
}
