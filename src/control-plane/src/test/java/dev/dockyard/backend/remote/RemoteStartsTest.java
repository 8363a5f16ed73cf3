package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A start on a remote node is waited for by following the remote runtime's own event stream, and
 * by asking its status only when the stream is refused or breaks.
 */
class RemoteStartsTest {

    private FakeControlPlane remote;
    private RemoteBackend backend;
    private final AtomicInteger asked = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        remote = new FakeControlPlane();
        backend = remote.backend();
    }

    @AfterEach
    void stop() {
        remote.close();
    }

    /** A stream that sends {@code statuses} (with a keep-alive and a pause between), then stays open quietly. */
    private static FakeControlPlane.Route events(boolean endAfter, String... statuses) {
        return (exchange, body) -> {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            try {
                for (String status : statuses) {
                    write(out, ": waiting\n\n");
                    write(out, "event: status\nid: " + status + "\ndata: {\"status\":\"" + status
                            + "\",\"message\":\"" + (status.equals("ERROR") ? "image x is not on this node" : "")
                            + "\",\"at\":\"2026-11-25T10:00:00Z\"}\n\n");
                    Thread.sleep(100);
                }
                for (int i = 0; i < 100 && !endAfter; i++) {
                    Thread.sleep(100);
                    write(out, ": waiting\n\n");
                }
            } catch (InterruptedException | IOException left) {
                // the client closed the stream
            }
        };
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void statusIs(String... answers) {
        remote.routes.put("GET /api/v1/runtimes/rt-remote1", (HttpExchange exchange, byte[] body) -> {
            int n = asked.getAndIncrement();
            FakeControlPlane.json(exchange, 200, FakeControlPlane.runtime(answers[Math.min(n, answers.length - 1)]));
        });
    }

    @Test
    void shouldFollowTheRemotesEventsUntilReadyWithoutAskingItsStatus() {
        remote.routes.put("GET /api/v1/runtimes/rt-remote1/events",
                events(false, "STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED", "READY"));
        statusIs("STARTING_RUNTIME");
        long started = System.nanoTime();

        backend.awaitRunning("dockyard-rt-a", Duration.ofSeconds(30));

        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(5)) < 0);
        assertEquals(1, remote.count("GET /api/v1/runtimes/rt-remote1/events key=true"), remote.seen.toString());
        assertEquals(0, asked.get(), "no status asked while the stream said it: " + remote.seen);
    }

    @Test
    void shouldFailTheStartAtOnceWithTheRemotesMessage() {
        remote.routes.put("GET /api/v1/runtimes/rt-remote1/events", events(false, "STARTING_RUNTIME", "ERROR"));

        BackendException failed = assertThrows(BackendException.class,
                () -> backend.awaitRunning("dockyard-rt-a", Duration.ofSeconds(30)));

        assertTrue(failed.getMessage().contains("rt-remote1 is ERROR there: image x is not on this node"),
                failed.getMessage());
        assertTrue(failed.getMessage().contains("remote node 'remote1'"), failed.getMessage());
    }

    @Test
    void shouldAskItsStatusWhenTheStreamIsRefused() {
        statusIs("STARTING_RUNTIME", "BUILDING_RUNTIME", "READY");

        backend.awaitRunning("dockyard-rt-a", Duration.ofSeconds(30));

        assertEquals(3, asked.get(), remote.seen.toString());
    }

    @Test
    void shouldAskOnWhenTheStreamBreaksAndGiveUpAtTheDeadline() {
        remote.routes.put("GET /api/v1/runtimes/rt-remote1/events", events(true, "STARTING_RUNTIME"));
        statusIs("STARTING_RUNTIME");
        long started = System.nanoTime();

        BackendException late = assertThrows(BackendException.class,
                () -> backend.awaitRunning("dockyard-rt-a", Duration.ofSeconds(2)));

        assertTrue(late.getMessage().contains("was not READY within 2 s (it is STARTING_RUNTIME there)"),
                late.getMessage());
        assertTrue(asked.get() >= 2, "asked after the stream broke: " + remote.seen);
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(6)) < 0);
    }

    @Test
    void shouldResumeARuntimePausedThereBeforeItWasSeenReady() {
        remote.routes.put("GET /api/v1/runtimes/rt-remote1/events", events(false, "STARTING_RUNTIME", "PAUSED"));
        remote.routes.put("POST /api/v1/runtimes/rt-remote1/resume",
                (exchange, body) -> FakeControlPlane.json(exchange, 200, FakeControlPlane.runtime("READY")));

        backend.awaitRunning("dockyard-rt-a", Duration.ofSeconds(30));

        assertEquals(1, remote.count("POST /api/v1/runtimes/rt-remote1/resume"), remote.seen.toString());
    }
}
