package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.transport.DockerHttpClient;
import dev.dockyard.backend.EngineUnreachableException;
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
                () -> new AnsweringEngine(throwing(gone), "unix:///var/run/docker.sock").execute(PING));
        assertTrue(unreachable.getMessage().contains("unix:///var/run/docker.sock does not answer"), unreachable.getMessage());
        assertTrue(unreachable.getMessage().contains("No such file or directory"), unreachable.getMessage());

        RuntimeException slow = new RuntimeException(new SocketTimeoutException("Read timed out"));
        assertSame(slow, assertThrows(RuntimeException.class,
                () -> new AnsweringEngine(throwing(slow), "x").execute(PING)), "a slow engine is not a gone one");
        IllegalStateException other = new IllegalStateException("a bug");
        assertSame(other, assertThrows(RuntimeException.class, () -> new AnsweringEngine(throwing(other), "x").execute(PING)));
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
