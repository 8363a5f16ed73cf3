package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertThrows;

import com.github.dockerjava.api.DockerClient;
import dev.dockyard.backend.EngineUnreachableException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The key check while a node's engine does not answer (the soak's node cut, 2026-12-01): the
 * engine cannot confirm where a sandbox publishes, and the session key is not sent on a guess, not
 * even to the sandbox's own loopback address (any process of the host may bind its free port once
 * the sandbox stopped). What is raised is the engine's silence, which the API answers with 503 and
 * {@code Retry-After} (every action had answered 502). The engine is a real client against a port
 * nothing listens on.
 */
class UnansweringEnginePortsTest {

    private DockerClient docker;
    private ContainerLifecycle lifecycle;

    @BeforeEach
    void connect() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        docker = DockerNodeFactory.client("cut", Optional.of("tcp://127.0.0.1:" + port), Duration.ofSeconds(5), 2);
        lifecycle = new ContainerLifecycle(docker, new ContainerViews(docker));
    }

    @AfterEach
    void close() throws Exception {
        docker.close();
    }

    @Test
    void shouldConfirmNoAddressWhileTheEngineDoesNotAnswerNotEvenTheSandboxsOwn() {
        String name = "dockyard-rt-0123456789abcdef";

        assertThrows(EngineUnreachableException.class,
                () -> lifecycle.publishes(name, URI.create("http://" + SandboxAddresses.of(name) + ":32801")));
        assertThrows(EngineUnreachableException.class,
                () -> lifecycle.publishes(name, URI.create("http://127.0.0.1:32801")));
    }
}
