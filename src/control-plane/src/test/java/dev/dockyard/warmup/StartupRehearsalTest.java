package dev.dockyard.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dockyard.application.users.RehearsalUsers;
import dev.dockyard.config.DockyardConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rehearsal against a stand-in of the API on 127.0.0.1 that answers as told: whatever the API
 * answers, the rehearsal's user is deleted, and the line for {@code /health/ready} holds status
 * codes and exception names, never an answer's words. The real path is StartupRehearsalIT's.
 */
class StartupRehearsalTest {

    private static final String USER = RehearsalUsers.PREFIX + "0123456789ab";
    private static final Instant NOW = Instant.parse("2026-12-03T16:00:00Z");

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> deleted = new CopyOnWriteArrayList<>();
    private List<String> leftovers = List.of();
    private HttpServer api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.stop(0);
        }
    }

    /** An API answering each "METHOD path" with its status and body; anything else 404. */
    private URI api(Map<String, Answer> answers) throws IOException {
        api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        api.createContext("/", exchange -> answer(exchange, answers));
        api.start();
        return URI.create("http://127.0.0.1:" + api.getAddress().getPort() + "/api/v1/");
    }

    private record Answer(int status, String body) {
    }

    private void answer(HttpExchange exchange, Map<String, Answer> answers) throws IOException {
        String request = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        requests.add(request + " key=" + exchange.getRequestHeaders().getFirst(StartupWarmUp.KEY_HEADER));
        exchange.getRequestBody().readAllBytes();
        Answer a = answers.getOrDefault(request, new Answer(404, "{}"));
        byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    private StartupRehearsal rehearsal(boolean enabled) {
        StartupRehearsal rehearsal = new StartupRehearsal();
        rehearsal.enabled = enabled;
        rehearsal.clock = Clock.fixed(NOW, ZoneOffset.UTC);
        rehearsal.config = new DockyardConfig() {
            @Override
            public Duration sandboxTimeout() {
                return Duration.ofSeconds(5);
            }
        };
        rehearsal.users = new RehearsalUsers() {
            @Override
            public Made make() {
                return new Made(USER, "dy_rehearsal");
            }

            @Override
            public void delete(String userId) {
                deleted.add(userId);
            }

            @Override
            public List<String> leftovers(Instant now, Duration age) {
                assertEquals(NOW, now);
                assertEquals(StartupRehearsal.leftoverAge(Duration.ofSeconds(5)), age);
                return leftovers;
            }
        };
        return rehearsal;
    }

    @Test
    void shouldProvisionEchoAndDeleteWithItsUsersKeyThenDeleteTheUser() throws Exception {
        URI base = api(Map.of(
                "POST /api/v1/runtimes", new Answer(201, "{\"id\":\"rt-1\",\"status\":\"READY\"}"),
                "POST /api/v1/runtimes/rt-1/actions", new Answer(200, "{\"observation\":\"run\"}"),
                "DELETE /api/v1/runtimes/rt-1", new Answer(204, "")));

        String outcome = rehearsal(true).rehearse(base);

        assertTrue(outcome.matches("READY in \\d+ ms, echo answered 200 in \\d+ ms, deleted 204"), outcome);
        assertEquals(List.of("POST /api/v1/runtimes key=dy_rehearsal", "POST /api/v1/runtimes/rt-1/actions key=dy_rehearsal",
                "DELETE /api/v1/runtimes/rt-1 key=dy_rehearsal"), requests);
        assertEquals(List.of(USER), deleted);
    }

    @Test
    void shouldDeleteARuntimeNotReadyWithoutAnEchoAndSayWhenItsDeleteFails() throws Exception {
        URI base = api(Map.of(
                "POST /api/v1/runtimes", new Answer(202, "{\"id\":\"rt-2\",\"status\":\"STARTING_RUNTIME\"}"),
                "DELETE /api/v1/runtimes/rt-2", new Answer(500, "{\"detail\":\"engine said no at /var/run/x\"}")));

        String outcome = rehearsal(true).rehearse(base);

        assertTrue(outcome.matches("STARTING_RUNTIME in \\d+ ms, its delete answered 500"), outcome);
        assertEquals(2, requests.size(), requests.toString());
        // the user's deletion takes the runtime with it
        assertEquals(List.of(USER), deleted);
    }

    @Test
    void shouldSayARefusalsStatusButNotItsWords() throws Exception {
        URI base = api(Map.of("POST /api/v1/runtimes", new Answer(404,
                "{\"detail\":\"image 'dockyard/sandbox:latest' not found on node 'local'\"}")));

        String outcome = rehearsal(true).rehearse(base);

        assertEquals("no runtime: the provision was answered 404", outcome);
        assertEquals(List.of(USER), deleted);
    }

    @Test
    void shouldNameAFailureByItsClassOnly() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort();
        }

        String outcome = rehearsal(true).rehearse(URI.create("http://127.0.0.1:" + closed + "/api/v1/"));

        assertEquals("failed: ConnectException", outcome);
        assertEquals(List.of(USER), deleted);
    }

    @Test
    void shouldDeleteEarlierStartsLeftoversEvenWhenOff() {
        leftovers = List.of(RehearsalUsers.PREFIX + "aaaaaaaaaaaa", RehearsalUsers.PREFIX + "bbbbbbbbbbbb");

        assertEquals("off", rehearsal(false).rehearse(URI.create("http://127.0.0.1:9/api/v1/")));

        assertEquals(leftovers, deleted);
        assertEquals(List.of(), requests);
    }

    @Test
    void shouldTakeForLeftOnlyUsersOlderThanAnyRehearsalCanRun() {
        // its provision's wait, its echo, its delete, and ten minutes more
        assertEquals(Duration.ofSeconds(120 + 30 + 60 + 600), StartupRehearsal.leftoverAge(Duration.ofSeconds(120)));
    }
}
