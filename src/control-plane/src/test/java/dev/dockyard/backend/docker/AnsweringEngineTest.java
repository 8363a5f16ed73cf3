package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.transport.DockerHttpClient;
import dev.dockyard.backend.EngineUnreachableException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An engine that does not answer (the soak's engine restart, 2026-11-30: deletes and pauses answered
 * 500 from docker-java's bare RuntimeException) against one that answered or was merely slow.
 */
class AnsweringEngineTest {

    private static DockerHttpClient throwing(RuntimeException e) {
        return new DockerHttpClient() {
            @Override
            public Response execute(Request request) {
                throw e;
            }

            @Override
            public void close() {
            }
        };
    }

    private static final DockerHttpClient.Request PING = DockerHttpClient.Request.builder()
            .method(DockerHttpClient.Request.Method.GET).path("/_ping").build();

    @Test
    void shouldTellAnEngineThatDoesNotAnswerFromOtherFailures() {
        RuntimeException gone = new RuntimeException(new SocketException("No such file or directory"));
        EngineUnreachableException unreachable = assertThrows(EngineUnreachableException.class,
                () -> new AnsweringEngine(throwing(gone), "local", "unix:///var/run/docker.sock").execute(PING));
        assertTrue(unreachable.getMessage().contains("engine of node 'local' does not answer (SocketException)"),
                unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("/var/run"), "the answer names the node, not its endpoint");

        RuntimeException slow = new RuntimeException(new SocketTimeoutException("Read timed out"));
        assertSame(slow, assertThrows(RuntimeException.class,
                () -> new AnsweringEngine(throwing(slow), "x", "y").execute(PING)), "a slow engine is not a gone one");
        IllegalStateException other = new IllegalStateException("a bug");
        assertSame(other, assertThrows(RuntimeException.class, () -> new AnsweringEngine(throwing(other), "x", "y").execute(PING)));
    }

    /** As the shaded HTTP client's: a connect that timed out is a subclass of a read that timed out. */
    private static final class ConnectTimeoutException extends SocketTimeoutException {
    }

    @Test
    void shouldTakeAConnectTimeoutForAnEngineNotThereButNotAPoolWaitOrAnInterrupt() {
        assertTrue(AnsweringEngine.connectionFailure(new RuntimeException(new ConnectTimeoutException())) != null,
                "a TCP engine whose host is down");
        assertNull(AnsweringEngine.connectionFailure(new RuntimeException(new InterruptedIOException("pool"))),
                "waiting for a pooled connection, or an interrupt, is no engine gone");
        assertNull(AnsweringEngine.connectionFailure(new RuntimeException(new SocketTimeoutException("Read timed out"))));
        assertTrue(AnsweringEngine.connectionFailure(new RuntimeException(new IOException("Broken pipe"))) != null);
    }

    @Test
    void shouldSayTheEngineDoesNotAnswerWhenNothingListensAtItsAddress() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        // a real client against a port nobody listens on: the transport's own exception, recognised
        var docker = DockerNodeFactory.client("gone", Optional.of("tcp://127.0.0.1:" + port), Duration.ofSeconds(5), 2);
        EngineUnreachableException refused = assertThrows(EngineUnreachableException.class, () -> docker.pingCmd().exec());
        assertTrue(refused.getMessage().contains("does not answer"), refused.getMessage());
    }
}
