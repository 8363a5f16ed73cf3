package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sandbox's ports on the real engine: published on the sandbox's own loopback address, and
 * started again when the port the engine picked is taken by a socket the engine does not know of
 * (the soak's two engines on one host, 2026-11-30: "bind: address already in use", provisions in
 * ERROR: the engine tries ten ports in a row, and the other engine held them all). The taken ports
 * are listening sockets this test binds on that address, the first twelve the engine picks for an
 * address it has not published on yet.
 */
class SandboxPortsIT {

    private static final String IMAGE = "dockyard/sandbox-base:bookworm";
    private static final int FIRST_PICKED = 32768;
    private static final int TAKEN = 12;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private DockerClient docker;
    private String name;

    @BeforeEach
    void connect() {
        docker = DockerNodeFactory.client("ports-it", Optional.empty(), Duration.ofSeconds(60), 4);
        name = "dockyard-it-ports-" + HexFormat.of().formatHex(new byte[] {
                (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt(),
                (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
    }

    @AfterEach
    void remove() throws IOException {
        try {
            docker.removeContainerCmd(name).withForce(true).exec();
        } catch (RuntimeException e) {
            // never created
        }
        docker.close();
    }

    @Test
    void shouldPublishOnItsOwnAddressAndStartAgainWhenThePickedPortIsTaken() throws Exception {
        String address = SandboxAddresses.of(name);
        ExposedPort port = ExposedPort.tcp(8000);
        docker.createContainerCmd(IMAGE).withName(name).withEntrypoint("python3", "-m", "http.server", "8000")
                .withExposedPorts(port)
                .withHostConfig(HostConfig.newHostConfig()
                        .withPortBindings(new PortBinding(Ports.Binding.bindIp(address), port)))
                .exec();
        URI endpoint;
        List<String> said = new ArrayList<>();
        Handler listening = new Handler() {
            @Override
            public void publish(LogRecord record) {
                said.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(ContainerLifecycle.class.getName());
        log.addHandler(listening);
        List<ServerSocket> taken = new ArrayList<>();
        try {
            // more ports in a row than the engine tries on its own (10) before it gives up the start
            for (int p = FIRST_PICKED; p < FIRST_PICKED + TAKEN; p++) {
                ServerSocket socket = new ServerSocket();
                taken.add(socket);
                socket.bind(new InetSocketAddress(InetAddress.getByName(address), p));
            }
            endpoint = new ContainerLifecycle(docker, new ContainerViews(docker)).start(name, 8000);
        } finally {
            log.removeHandler(listening);
            for (ServerSocket socket : taken) {
                socket.close();
            }
        }
        assertEquals(address, endpoint.getHost(), "the address is the sandbox's own");
        assertTrue(endpoint.getPort() >= FIRST_PICKED + TAKEN, "a port after the taken ones: " + endpoint);
        assertTrue(said.stream().anyMatch(m -> m.contains("was taken (try 1 of")), "started again: " + said);
        HttpResponse<String> page = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (page == null && System.nanoTime() < deadline) {
            try {
                page = http.send(HttpRequest.newBuilder(endpoint.resolve("/")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        assertEquals(200, page == null ? -1 : page.statusCode(), "the sandbox answers where the start said");
    }

    /**
     * A frozen container's port takes connections that nothing answers: an action sent there waited
     * out its whole timeout (the soak's node cut, 2026-12-01: 150 s). The engine's word is asked, so
     * a READY runtime whose sandbox is frozen is refused at once, as one being recovered.
     */
    @Test
    void shouldNotTakeAFrozenContainerForOneThatPublishesItsPort() {
        ExposedPort port = ExposedPort.tcp(8000);
        docker.createContainerCmd(IMAGE).withName(name).withEntrypoint("python3", "-m", "http.server", "8000")
                .withExposedPorts(port)
                .withHostConfig(HostConfig.newHostConfig()
                        .withPortBindings(new PortBinding(Ports.Binding.bindIp(SandboxAddresses.of(name)), port)))
                .exec();
        ContainerLifecycle lifecycle = new ContainerLifecycle(docker, new ContainerViews(docker));
        URI endpoint = lifecycle.start(name, 8000);

        docker.pauseContainerCmd(name).exec();
        assertFalse(lifecycle.publishes(name, endpoint), "frozen: nothing answers there");

        docker.unpauseContainerCmd(name).exec();
        assertTrue(lifecycle.publishes(name, endpoint), "thawed: its own port again");
    }
}
