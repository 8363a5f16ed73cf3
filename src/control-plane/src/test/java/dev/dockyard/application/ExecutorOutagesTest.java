package dev.dockyard.application;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.dockyard.fakes.RecordedEvents;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ExecutorClient.ExecutorUnreachableException;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a request answers when the executor cannot be reached, with the real executor client on
 * loopback: nothing listening (a killed executor), or a connection closed unanswered, is a 503
 * with Retry-After that brings the reconciler forward; an executor too slow to answer stays a 502.
 */
class ExecutorOutagesTest {

    private static final JsonObject ECHO = Jsonp.createObjectBuilder().add("action", "run")
            .add("args", Jsonp.createObjectBuilder().add("command", "echo hi")).build();

    private final RecordedEvents<SandboxUnanswered> events = new RecordedEvents<>();
    private final ExecutorOutages outages = new ExecutorOutages();
    private final SandboxRuntime runtime = new SandboxRuntime("c1", "alice", "docker", "dockyard/sandbox:latest",
            1.0, 512, 60, Instant.now());

    ExecutorOutagesTest() {
        outages.unanswered = events;
    }

    @Test
    void shouldAnswer503WithRetryAfterAndBringTheReconcilerForwardWhenNothingListens() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        ExecutorUnreachableException unreachable = assertThrows(ExecutorUnreachableException.class,
                () -> new ExecutorClient().execute(URI.create("http://127.0.0.1:" + port), "key", ECHO,
                        Duration.ofSeconds(5), null));

        Refused refused = outages.refusal(runtime, unreachable);

        assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason());
        assertEquals(2, refused.retryAfterSeconds());
        assertTrue(refused.getMessage().contains("retry"), refused.getMessage());
        assertEquals(List.of(new SandboxUnanswered(runtime.id())), events.fired());
    }

    @Test
    void shouldAnswer503WhenTheConnectionIsClosedWithNoAnswer() throws Exception {
        try (ServerSocket dropping = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // takes the action's connection and closes it unanswered: what the engine's port forwarder
            // does for a sandbox whose executor was just killed
            Thread closer = new Thread(() -> {
                try (Socket taken = dropping.accept()) {
                    // the whole request first: a connection closed while the client still writes is
                    // one HttpURLConnection opens again and writes anew (the request was not taken)
                    readRequest(taken.getInputStream());
                } catch (IOException e) {
                    // the test fails on its own assertions
                }
            });
            closer.start();
            ExecutorUnreachableException unreachable = assertThrows(ExecutorUnreachableException.class,
                    () -> new ExecutorClient().execute(URI.create("http://127.0.0.1:" + dropping.getLocalPort()), "key",
                            ECHO, Duration.ofSeconds(5), null));
            closer.join(5000);

            Refused refused = outages.refusal(runtime, unreachable);

            assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason());
            assertEquals(2, refused.retryAfterSeconds());
            assertEquals(List.of(new SandboxUnanswered(runtime.id())), events.fired());
        }
    }

    /**
     * A download whose executor went away after its answer's head (the soak's engine restart,
     * 2026-11-30: a {@code 500} with no body, the zip's stream failing once the answer was under way):
     * its first bytes are read before the answer, so it is a 503 like any executor gone.
     */
    @Test
    void shouldAnswer503ForADownloadWhoseBodyEndsBeforeItBegan() throws Exception {
        try (ServerSocket cutting = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket taken = cutting.accept()) {
                    readRequest(taken.getInputStream());
                    // a chunked 200 whose first chunk never comes
                    taken.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    taken.getOutputStream().flush();
                } catch (IOException e) {
                    // the test fails on its own assertions
                }
            });
            server.start();
            HttpResponse<InputStream> answer = new ExecutorClient().download(
                    URI.create("http://127.0.0.1:" + cutting.getLocalPort()), "key", "/workspace");
            assertEquals(200, answer.statusCode());

            ExecutorUnreachableException cut = assertThrows(ExecutorUnreachableException.class,
                    () -> ExecutorClient.begun(answer.body()));
            server.join(5000);
            Refused refused = outages.refusal(runtime, cut);

            assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason());
            assertEquals(2, refused.retryAfterSeconds());
        }
    }

    @Test
    void shouldHandOnADownloadThatBeganWithEveryByte() throws Exception {
        byte[] zip = new byte[200_000];
        new Random(7).nextBytes(zip);
        try (InputStream begun = ExecutorClient.begun(new ByteArrayInputStream(zip))) {
            assertArrayEquals(zip, begun.readAllBytes());
        }
        try (InputStream empty = ExecutorClient.begun(new ByteArrayInputStream(new byte[0]))) {
            assertEquals(-1, empty.read());
        }
    }

    @Test
    void shouldAnswer503ForAnExecutorsServerErrorWhenItsSandboxStopsServing() throws Exception {
        outages.executors = new ExecutorClient();
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        // its 500 answered, the executor went with its sandbox (an engine restart stops them all)
        SandboxRuntime ready = readyAt("http://127.0.0.1:" + port);

        Refused refused = outages.serverError(ready, 500, "Internal Server Error");

        assertEquals(Refused.Reason.EXECUTOR_UNAVAILABLE, refused.reason());
        assertEquals(2, refused.retryAfterSeconds());
        assertEquals(List.of(new SandboxUnanswered(ready.id())), events.fired());
    }

    @Test
    void shouldStayA502ForAnExecutorsServerErrorWhileItGoesOnServing() throws Exception {
        outages.executors = new ExecutorClient();
        HttpServer executor = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        executor.createContext("/ready", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        executor.start();
        try {
            SandboxRuntime ready = readyAt("http://127.0.0.1:" + executor.getAddress().getPort());
            long started = System.nanoTime();

            Refused refused = outages.serverError(ready, 500, "Internal Server Error");

            assertEquals(Refused.Reason.EXECUTOR_FAILED, refused.reason());
            assertEquals("The executor answered 500: Internal Server Error", refused.getMessage());
            assertTrue(System.nanoTime() - started >= ExecutorOutages.STOPPING_WATCH.toNanos(), "watched first");
            assertEquals(List.of(), events.fired());
        } finally {
            executor.stop(0);
        }
    }

    private SandboxRuntime readyAt(String executorUrl) {
        SandboxRuntime ready = new SandboxRuntime("c2", "alice", "docker", "dockyard/sandbox:latest", 1.0, 512, 60,
                Instant.now());
        ready.transitionTo(RuntimeStatus.RUNTIME_STARTED, "test", Instant.now());
        ready.transitionTo(RuntimeStatus.READY, "test", Instant.now());
        ready.reachableAt(executorUrl);
        return ready;
    }

    @Test
    void shouldStayA502WhenTheExecutorDidNotAnswerInTime() {
        Refused refused = outages.refusal(runtime, new ExecutorUnreachableException("no answer in time",
                new SocketTimeoutException("Read timed out")));

        assertEquals(Refused.Reason.EXECUTOR_FAILED, refused.reason());
        assertEquals(0, refused.retryAfterSeconds());
        assertTrue(events.fired().isEmpty());
    }

    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                return;
            }
            head.append((char) c);
        }
        Matcher length = Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
        in.readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
    }
}
