package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A container its engine can no longer start, on the real engine: containerd kept the state
 * directory of a start it was cut off in (the soak of 2026-12-01 02:45: after an engine restart a
 * runtime's start was refused every 10 s, "task &lt;id&gt;: already exists", until it was released
 * and its files with it). The test leaves such a directory itself, an empty one named after the
 * container it made, in the engine's own runtime directory, which is what a start cut off leaves;
 * the start then replaces the container by a copy that runs with everything the old one kept.
 */
class StaleTaskIT {

    private static final String IMAGE = "dockyard/sandbox-base:bookworm";
    /** Where the engine of docker/ensure-engine.sh keeps its containers' task directories. */
    private static final Path TASKS = Path.of("/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby");
    private static final String KEY_DIR = "/opt/dockyard/run";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private DockerClient docker;
    private String name;
    private Path staleDirectory;

    @BeforeEach
    void connect() {
        assumeTrue(Files.isDirectory(TASKS), "the engine is not docker/ensure-engine.sh's: no " + TASKS);
        docker = DockerNodeFactory.client("stale-task-it", Optional.empty(), Duration.ofSeconds(60), 4);
        name = "dockyard-it-stale-" + HexFormat.of().formatHex(new byte[] {
                (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt(),
                (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
    }

    @AfterEach
    void remove() throws IOException {
        if (docker == null) {
            return;
        }
        // the sandbox, and an old container parked under another name if a replacement failed
        for (Container container : docker.listContainersCmd().withShowAll(true).withNameFilter(List.of(name)).exec()) {
            docker.removeContainerCmd(container.getId()).withForce(true).withRemoveVolumes(true).exec();
        }
        ContainerReplacement.removeKeptLayer(docker, name);
        for (String leftover : new String[] {"network", "volume"}) {
            try {
                if (leftover.equals("network")) {
                    docker.removeNetworkCmd(name + "-extra").exec();
                } else {
                    docker.removeVolumeCmd(name + "-data").exec();
                }
            } catch (RuntimeException e) {
                // never made
            }
        }
        if (staleDirectory != null) {
            Files.deleteIfExists(staleDirectory);
        }
        docker.close();
    }

    /**
     * A read-only root (the default): the copy mounts the named volume again, carries over what the
     * anonymous key directory held (the sandbox below serves only when it finds its key there), is on
     * the same extra network with the same labels, and the old container and its volume are gone.
     */
    @Test
    void shouldReplaceAReadOnlyRootedContainerItsEngineCannotStart() throws Exception {
        docker.createVolumeCmd().withName(name + "-data").exec();
        docker.createNetworkCmd().withName(name + "-extra").exec();
        ExposedPort port = ExposedPort.tcp(8000);
        String old = docker.createContainerCmd(IMAGE).withName(name)
                .withLabels(Map.of("dockyard.it", "stale-task"))
                .withEntrypoint("sh", "-c", "test -s " + KEY_DIR + "/key && exec python3 -m http.server 8000 "
                        + "--directory /data")
                .withExposedPorts(port)
                .withVolumes(new Volume(KEY_DIR))
                .withHostConfig(HostConfig.newHostConfig().withReadonlyRootfs(true)
                        .withBinds(new Bind(name + "-data", new Volume("/data")))
                        .withPortBindings(new PortBinding(Ports.Binding.bindIp(SandboxAddresses.of(name)), port)))
                .exec().getId();
        docker.connectToNetworkCmd().withContainerId(old).withNetworkId(name + "-extra").exec();
        put(name, KEY_DIR, "key", "a session key");
        put(name, "/data", "page.txt", "kept in the workspace");
        String anonymous = docker.inspectContainerCmd(old).exec().getMounts().stream()
                .filter(m -> m.getDestination().getPath().equals(KEY_DIR)).findFirst().orElseThrow().getName();
        leaveStaleTask(old);

        URI endpoint = new ContainerLifecycle(docker, new ContainerViews(docker)).start(name, 8000);

        assertEquals("kept in the workspace", fetch(endpoint.resolve("/page.txt")), "served: key and volume there");
        InspectContainerResponse copy = docker.inspectContainerCmd(name).exec();
        assertNotEquals(old, copy.getId(), "a new container");
        assertEquals("stale-task", copy.getConfig().getLabels().get("dockyard.it"));
        assertTrue(copy.getHostConfig().getReadonlyRootfs(), "the same confinement");
        assertTrue(copy.getNetworkSettings().getNetworks().containsKey(name + "-extra"), "on the extra network");
        assertThrows(NotFoundException.class, () -> docker.inspectContainerCmd(old).exec(), "the old one is gone");
        assertThrows(NotFoundException.class, () -> docker.inspectVolumeCmd(anonymous).exec(),
                "with its anonymous volume");
    }

    /**
     * A writable root: what was written into it is in the copy (committed to an image that goes with
     * the sandbox's removal).
     */
    @Test
    void shouldCarryAWritableRootsFilesOverAndRemoveTheirImageWithTheSandbox() throws Exception {
        ExposedPort port = ExposedPort.tcp(8000);
        String old = docker.createContainerCmd(IMAGE).withName(name)
                .withEntrypoint("python3", "-m", "http.server", "8000", "--directory", "/srv")
                .withExposedPorts(port)
                .withHostConfig(HostConfig.newHostConfig()
                        .withPortBindings(new PortBinding(Ports.Binding.bindIp(SandboxAddresses.of(name)), port)))
                .exec().getId();
        put(name, "/srv", "written.txt", "written into the root");
        leaveStaleTask(old);

        URI endpoint = new ContainerLifecycle(docker, new ContainerViews(docker)).start(name, 8000);

        assertEquals("written into the root", fetch(endpoint.resolve("/written.txt")));
        String image = ContainerReplacement.imageOf(name);
        assertEquals(docker.inspectImageCmd(image).exec().getId(), docker.inspectContainerCmd(name).exec().getImageId(),
                "the copy runs the committed layer");
        docker.removeContainerCmd(name).withForce(true).withRemoveVolumes(true).exec();
        ContainerReplacement.removeKeptLayer(docker, name);
        assertThrows(NotFoundException.class, () -> docker.inspectImageCmd(image).exec(), "removed with its sandbox");
    }

    /** What a start that containerd's going away cut off leaves: the task's directory, named by the container's id. */
    private void leaveStaleTask(String containerId) throws IOException {
        staleDirectory = Files.createDirectory(TASKS.resolve(containerId));
    }

    /** Writes one file into the (stopped) container, as the control plane hands a key. */
    private void put(String container, String directory, String file, String content) throws IOException {
        Path local = Files.createTempDirectory("stale-task-it");
        try {
            Path written = Files.writeString(local.resolve(file), content);
            docker.copyArchiveToContainerCmd(container).withHostResource(written.toString()).withRemotePath(directory)
                    .exec();
        } finally {
            try (var files = Files.walk(local)) {
                files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private String fetch(URI uri) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                HttpResponse<String> page = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (page.statusCode() == 200) {
                    return page.body();
                }
                if (System.nanoTime() > deadline) {
                    return page.statusCode() + ": " + page.body();
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(200);
        }
    }
}
