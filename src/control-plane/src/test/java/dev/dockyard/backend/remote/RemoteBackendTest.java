package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The remote backend's HTTP conversation with another control plane, against a small HTTP server
 * on 127.0.0.1 that answers as Dockyard's API does (the real pair of control planes is RemoteNodeIT):
 * which calls it makes, with which key and headers, and how it reads the answers.
 */
class RemoteBackendTest {

    static final String API_KEY = "dy_node_key_0123456789abcdefghijklmnop";
    private static final String SESSION_KEY = "sessionKey0123456789abcdefghijklmnopqrstu";

    /** One route's answer, written to the exchange (a stream writes as it likes). */
    interface Route {
        void answer(HttpExchange exchange, byte[] body) throws IOException;
    }

    private HttpServer server;
    private final ExecutorService serverThreads = Executors.newCachedThreadPool();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** "METHOD /path" → an answer of the test's own, before the defaults below. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private RemoteControlPlane remote;
    private RemoteBackend backend;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(serverThreads);
        server.createContext("/", exchange -> {
            byte[] raw = exchange.getRequestBody().readAllBytes();
            String body = new String(raw, StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getRawPath();
            String query = exchange.getRequestURI().getRawQuery();
            seen.add(exchange.getRequestMethod() + " " + path + (query == null ? "" : "?" + query) + " key="
                    + API_KEY.equals(exchange.getRequestHeaders().getFirst("X-API-Key")) + " idem="
                    + exchange.getRequestHeaders().getFirst("Idempotency-Key") + " " + body);
            Route own = routes.get(exchange.getRequestMethod() + " " + path);
            if (own != null) {
                own.answer(exchange, raw);
                exchange.close();
                return;
            }
            String answer;
            int status = 200;
            switch (exchange.getRequestMethod() + " " + path) {
                case "POST /runtime-api/start" ->
                        answer = "{\"runtime_id\":\"rt-remote1\",\"url\":\"http://127.0.0.1:1/rt-remote1\"}";
                case "GET /runtime-api/runtime/rt-remote1" ->
                        answer = "{\"runtime_id\":\"rt-remote1\",\"url\":\"http://127.0.0.1:1/rt-remote1\"}";
                case "GET /runtime-api/sessions/cp-a%3Adockyard-rt-known" -> answer = "{\"runtime_id\":\"rt-remote2\"}";
                case "GET /runtime-api/sessions/cp-a%3Adockyard-rt-a" -> answer = "{\"runtime_id\":\"rt-remote1\"}";
                case "GET /runtime-api/registry_prefix" -> answer = "{\"registry_prefix\":\"x\"}";
                case "GET /api/v1/runtimes/rt-remote1" -> answer = runtime("rt-remote1", "cp-a:dockyard-rt-a", "PAUSED");
                case "GET /api/v1/runtimes" -> answer = switch (query) {
                    case "status=READY" -> "{\"runtimes\":[" + runtime("rt-remote1", "cp-a:dockyard-rt-a", "READY")
                            + "," + runtime("rt-remote4", "cp-b:dockyard-rt-other", "READY") + "]}";
                    case "status=HIBERNATED" -> "{\"runtimes\":[" + runtime("rt-remote5", "cp-a:dockyard-rt-b",
                            "HIBERNATED") + "]}";
                    case "status=PAUSED" -> "{\"runtimes\":[" + String.join(",", Collections.nCopies(
                            truncatedPaused ? 1000 : 0, runtime("rt-x", "cp-z:dockyard-rt-x", "PAUSED"))) + "]}";
                    default -> "{\"runtimes\":[]}";
                };
                case "POST /api/v1/runtimes/rt-remote1/resume" -> answer = runtime("rt-remote1", "cp-a:dockyard-rt-a", "READY");
                case "POST /api/v1/runtimes/rt-remote1/pause" -> answer = runtime("rt-remote1", "cp-a:dockyard-rt-a", "PAUSED");
                case "DELETE /api/v1/runtimes/rt-remote2" -> {
                    status = 204;
                    answer = null;
                }
                default -> {
                    status = 404;
                    answer = "{\"detail\":\"no such thing\"}";
                }
            }
            if (answer == null) {
                exchange.sendResponseHeaders(status, -1);
            } else {
                send(exchange, status, answer);
            }
            exchange.close();
        });
        server.start();
        RemoteNodeConfig settings = new RemoteNodeConfig("remote1",
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), RemoteKey.given(API_KEY), Duration.ofSeconds(5),
                Duration.ofSeconds(5), "cp-a");
        remote = new RemoteControlPlane(settings);
        backend = new RemoteBackend(settings, remote, new RemoteCalls(), 8000, 1000);
    }

    private boolean stopped;
    private volatile boolean truncatedPaused;

    @AfterEach
    void stop() {
        if (!stopped) {
            server.stop(0);
        }
        serverThreads.shutdownNow();
    }

    static void send(HttpExchange exchange, int status, String answer) throws IOException {
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    static String runtime(String id, String session, String status) {
        return "{\"id\":\"" + id + "\",\"conversationId\":\"" + session + "\",\"status\":\"" + status
                + "\",\"createdAt\":\"2026-11-25T10:00:00Z\"}";
    }

    private static SandboxSpec spec(String runtimeId, SandboxProcess process) {
        return new SandboxSpec(runtimeId, "conv", "cp-a", "dockyard-" + runtimeId, "dockyard/sandbox:latest", 1, 0, 1024,
                512, "openhands", 8000, SESSION_KEY, List.of(), process, List.of());
    }

    private long count(String start) {
        return seen.stream().filter(s -> s.startsWith(start)).count();
    }

    @Test
    void shouldStartThroughTheRuntimeApiWithTheSessionKeyAsServiceKeyAndAnIdempotencyKey() {
        assertEquals("rt-remote1", backend.create(spec("rt-a", null)));

        String start = seen.get(0);
        assertTrue(start.startsWith("POST /runtime-api/start key=true idem=cp-a:dockyard-rt-a "), start);
        assertTrue(start.contains("\"session_id\":\"cp-a:dockyard-rt-a\""), start);
        assertTrue(start.contains("\"session_api_key\":\"" + SESSION_KEY + "\""), start);
        // the default executor server is not named: a remote of an earlier version takes the start
        assertFalse(start.contains("executor_server"), start);
        assertEquals("/rt-remote1", backend.start("dockyard-rt-a", 8000).getPath());
        assertThrows(BackendException.class, () -> backend.endpoint("dockyard-rt-a", 12000));
    }

    @Test
    void shouldPassTheRuntimesExecutorServerToTheRemote() {
        backend.create(spec("rt-l", null).withExecutorServer(ExecutorServer.LIBERTY));

        assertTrue(seen.get(0).contains("\"executor_server\":\"liberty\""), seen.get(0));
    }

    @Test
    void shouldTakeTheRuntimesUrlFromTheRemoteOnItsOwnSchemeAndHostOnly() {
        // its services' port, as the remote's answer says (asked again after a restart: nothing cached)
        routes.put("GET /runtime-api/runtime/rt-remote1", (exchange, body) -> send(exchange, 200,
                "{\"runtime_id\":\"rt-remote1\",\"url\":\"http://127.0.0.1:9081/rt-remote1\"}"));
        assertEquals("http://127.0.0.1:9081/rt-remote1", backend.endpoint("dockyard-rt-a", 8000).toString());
        // another machine, or plain http where the node is https, never gets the runtime's key
        for (String elsewhere : new String[] {"http://10.0.0.9:9081/rt-remote1", "http://127.0.0.1.evil.example/x",
                "https://127.0.0.1:9081/rt-remote1", "not a url"}) {
            remote.forgetServiceUrl("rt-remote1");
            routes.put("GET /runtime-api/runtime/rt-remote1", (exchange, body) -> send(exchange, 200,
                    "{\"runtime_id\":\"rt-remote1\",\"url\":\"" + elsewhere + "\"}"));
            assertThrows(BackendException.class, () -> backend.endpoint("dockyard-rt-a", 8000), elsewhere);
        }
    }

    @Test
    void shouldRefuseAnImagesOwnProgramWithoutCallingTheRemote() {
        BackendException refused = assertThrows(BackendException.class, () -> backend.create(spec("rt-p",
                new SandboxProcess(List.of("serve"), null, Map.of(), null))));
        assertTrue(refused.getMessage().contains("executor only"), refused.getMessage());
        assertEquals(List.of(), seen);
    }

    @Test
    void shouldListOnlyThisControlPlanesLiveRuntimesThere() {
        List<ManagedSandbox> listed = backend.listManaged("cp-a");

        assertEquals(List.of("dockyard-rt-a", "dockyard-rt-b"), listed.stream().map(ManagedSandbox::name).toList());
        assertEquals("rt-a", listed.get(0).runtimeId());
        assertEquals(Instant.parse("2026-11-25T10:00:00Z"), listed.get(0).createdAt());
        assertTrue(listed.get(0).running());
        assertTrue(listed.get(1).paused());
    }

    @Test
    void shouldRefuseAListThatMayBeCut() {
        truncatedPaused = true;
        BackendException cut = assertThrows(BackendException.class, () -> backend.listManaged("cp-a"));
        assertTrue(cut.getMessage().contains("may be cut"), cut.getMessage());
    }

    @Test
    void shouldResumeAPausedRemoteRuntimeBeforeWork() {
        backend.listManaged("cp-a");
        seen.clear();

        backend.awaken("dockyard-rt-a");

        assertEquals(2, seen.size(), seen.toString());
        assertTrue(seen.get(1).startsWith("POST /api/v1/runtimes/rt-remote1/resume key=true"), seen.toString());
    }

    @Test
    void shouldResumeAfterTheRemotesRefusalAndSayWhetherTheWorkMayGoAgain() {
        backend.listManaged("cp-a");
        seen.clear();

        assertTrue(backend.awakenAfterRefusal("dockyard-rt-a"), "paused there, resumed: send it again");
        assertEquals(1, count("POST /api/v1/runtimes/rt-remote1/resume"), seen.toString());

        routes.put("GET /api/v1/runtimes/rt-remote1", (exchange, body) -> send(exchange, 200,
                runtime("rt-remote1", "cp-a:dockyard-rt-a", "ERROR_RUNTIME_DISCONNECTED")));
        assertFalse(backend.awakenAfterRefusal("dockyard-rt-a"), "lost there: the 503 stands");
        assertEquals(1, count("POST /api/v1/runtimes/rt-remote1/resume"), seen.toString());
    }

    @Test
    void shouldFindASandboxByItsSessionAfterARestartAndCountAGoneOneAsRemoved() {
        backend.remove("dockyard-rt-known");
        backend.remove("dockyard-rt-never");

        assertTrue(seen.get(1).startsWith("DELETE /api/v1/runtimes/rt-remote2 key=true"), seen.toString());
        assertEquals(SandboxState.Phase.MISSING, backend.inspect("dockyard-rt-never").phase());
    }

    @Test
    void shouldMapRemoteStatusesToPhases() {
        assertEquals(SandboxState.Phase.RUNNING, RemoteBackend.state(new RemoteRuntime("r", "s", "STARTING_RUNTIME", null,
                Instant.EPOCH)).phase());
        assertEquals(SandboxState.Phase.RUNNING, RemoteBackend.state(new RemoteRuntime("r", "s", "READY", null,
                Instant.EPOCH)).phase());
        assertEquals(SandboxState.Phase.PAUSED, RemoteBackend.state(new RemoteRuntime("r", "s", "HIBERNATED", null,
                Instant.EPOCH)).phase());
        SandboxState lost = RemoteBackend.state(new RemoteRuntime("r", "s", "ERROR_RUNTIME_DISCONNECTED", "its engine",
                Instant.EPOCH));
        assertTrue(lost.isGone());
        assertTrue(lost.logTail().contains("its engine"), lost.logTail());
    }

    @Test
    void shouldSayWhoDidNotAnswerWithoutTheKeyAndSinceWhen() {
        backend.ping();
        assertTrue(backend.unansweredSince().isEmpty());
        server.stop(0);
        stopped = true;
        RemoteUnreachableException down = assertThrows(RemoteUnreachableException.class, backend::ping);
        assertTrue(down.getMessage().contains("remote node 'remote1'"), down.getMessage());
        assertFalse(down.getMessage().contains(API_KEY), down.getMessage());
        Instant since = backend.unansweredSince().orElseThrow();

        assertThrows(RemoteUnreachableException.class, backend::ping);
        assertEquals(since, backend.unansweredSince().orElseThrow(), "the first unanswered call counts");
    }

    @Test
    void shouldAnswerAMalformedRuntimeWithABackendExceptionNamingTheNode() {
        backend.listManaged("cp-a");
        for (String malformed : List.of("{\"id\":5,\"status\":\"READY\"}", "{\"id\":\"rt-remote1\"}",
                "{\"id\":\"rt-remote1\",\"status\":\"READY\",\"createdAt\":\"yesterday\"}",
                "{\"id\":\"rt-remote1\",\"status\":\"READY\",\"conversationId\":[]}", "[1,2]", "not json")) {
            routes.put("GET /api/v1/runtimes/rt-remote1", (exchange, body) -> send(exchange, 200, malformed));

            BackendException refused = assertThrows(BackendException.class, () -> backend.inspect("dockyard-rt-a"),
                    malformed);

            assertTrue(refused.getMessage().contains("remote node 'remote1'"), refused.getMessage());
        }
        routes.put("GET /api/v1/runtimes", (exchange, body) -> send(exchange, 200, "{\"runtimes\":\"none\"}"));
        assertTrue(assertThrows(BackendException.class, () -> backend.listManaged("cp-a")).getMessage()
                .contains("its list of STARTING_RUNTIME runtimes"));
        routes.put("POST /runtime-api/start", (exchange, body) -> send(exchange, 201, "{\"runtime_id\":null}"));
        assertTrue(assertThrows(BackendException.class, () -> backend.create(spec("rt-c", null))).getMessage()
                .contains("runtime_id"));
    }

    @Test
    void shouldReadStatusEventsAsTheStreamFormatHasThem() {
        ServerSentEvent event = new ServerSentEvent();
        assertTrue(event.add(": waiting").isEmpty());
        assertTrue(event.add("").isEmpty(), "a comment is no event");
        assertTrue(event.add("event: progress").isEmpty());
        assertTrue(event.add("data: {\"line\":\"x\"}").isEmpty());
        assertTrue(event.add("").isEmpty(), "only status events count");
        event.add("event: status");
        event.add("id: 1");
        event.add("data: {\"status\":");
        event.add("data:\"READY\"}");
        assertEquals("{\"status\":\n\"READY\"}", event.add("").orElseThrow());
    }
}
