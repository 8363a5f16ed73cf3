package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The key check while a node's engine does not answer (the soak's node cut, 2026-12-01): its
 * sandboxes run on, and every action on them answered 502 because the engine could not confirm
 * where they publish. A sandbox's own loopback address is published by no other sandbox, so calls
 * go there; an address that is not the sandbox's own (127.0.0.1, any sandbox's) stays unconfirmed.
 * The engine is a real client against a port nothing listens on.
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
    void shouldSendToTheSandboxsOwnAddressWhileItsEngineDoesNotAnswer() {
        String name = "dockyard-rt-0123456789abcdef";
        URI own = URI.create("http://" + SandboxAddresses.of(name) + ":32801");

        assertTrue(lifecycle.publishes(name, own), "no other sandbox publishes on its address");
    }

    @Test
    void shouldNotConfirmAnAddressSandboxesShareWhileTheEngineDoesNotAnswer() {
        assertThrows(EngineUnreachableException.class,
                () -> lifecycle.publishes("dockyard-rt-0123456789abcdef", URI.create("http://127.0.0.1:32801")));
    }
}
