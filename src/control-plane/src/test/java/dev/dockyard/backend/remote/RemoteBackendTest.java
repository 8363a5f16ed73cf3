package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.dockyard.backend.BackendException;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The remote backend's HTTP conversation with another control plane, against a small HTTP server
 * on 127.0.0.1 that answers as Dockyard's API does (the real pair of control planes is RemoteNodeIT):
 * which calls it makes, with which key and headers, and how it reads the answers.
 */
class RemoteBackendTest {

    private static final String API_KEY = "dy_node_key_0123456789abcdefghijklmnop";
    private static final String SESSION_KEY = "sessionKey0123456789abcdefghijklmnopqrstu";

    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private RemoteBackend backend;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getRawPath();
            String query = exchange.getRequestURI().getRawQuery();
            seen.add(exchange.getRequestMethod() + " " + path + (query == null ? "" : "?" + query) + " key="
                    + API_KEY.equals(exchange.getRequestHeaders().getFirst("X-API-Key")) + " idem="
                    + exchange.getRequestHeaders().getFirst("Idempotency-Key") + " " + body);
            String answer;
            int status = 200;
            switch (exchange.getRequestMethod() + " " + path) {
                case "POST /runtime-api/start" -> answer = "{\"runtime_id\":\"rt-remote1\",\"url\":\"x\"}";
                case "GET /runtime-api/sessions/cp-a%3Adockyard-rt-known" -> answer = "{\"runtime_id\":\"rt-remote2\"}";
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
                byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
            exchange.close();
        });
        server.start();
        RemoteNodeConfig settings = new RemoteNodeConfig("remote1",
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), API_KEY, Duration.ofSeconds(5),
                Duration.ofSeconds(5), "cp-a");
        backend = new RemoteBackend(settings, new RemoteControlPlane(settings), new RemoteCalls(), 8000);
    }

    private boolean stopped;
    private volatile boolean truncatedPaused;

    @AfterEach
    void stop() {
        if (!stopped) {
            server.stop(0);
        }
    }

    private static String runtime(String id, String session, String status) {
        return "{\"id\":\"" + id + "\",\"conversationId\":\"" + session + "\",\"status\":\"" + status
                + "\",\"createdAt\":\"2026-11-25T10:00:00Z\"}";
    }

    private static SandboxSpec spec(String runtimeId, SandboxProcess process) {
        return new SandboxSpec(runtimeId, "conv", "cp-a", "dockyard-" + runtimeId, "dockyard/sandbox:latest", 1, 0, 1024,
                512, "openhands", 8000, SESSION_KEY, List.of(), process, List.of());
    }

    @Test
    void shouldStartThroughTheRuntimeApiWithTheSessionKeyAsServiceKeyAndAnIdempotencyKey() {
        assertEquals("rt-remote1", backend.create(spec("rt-a", null)));

        String start = seen.get(0);
        assertTrue(start.startsWith("POST /runtime-api/start key=true idem=cp-a:dockyard-rt-a "), start);
        assertTrue(start.contains("\"session_id\":\"cp-a:dockyard-rt-a\""), start);
        assertTrue(start.contains("\"session_api_key\":\"" + SESSION_KEY + "\""), start);
        assertEquals("/rt-remote1", backend.start("dockyard-rt-a", 8000).getPath());
        assertThrows(BackendException.class, () -> backend.endpoint("dockyard-rt-a", 12000));
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
    void shouldSayWhoDidNotAnswerWithoutTheKey() {
        server.stop(0);
        stopped = true;
        RemoteUnreachableException down = assertThrows(RemoteUnreachableException.class, backend::ping);
        assertTrue(down.getMessage().contains("remote node 'remote1'"), down.getMessage());
        assertFalse(down.getMessage().contains(API_KEY), down.getMessage());
    }
}
