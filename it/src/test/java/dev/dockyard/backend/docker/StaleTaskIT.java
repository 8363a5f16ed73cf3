package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import dev.dockyard.backend.SandboxSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sandbox its engine can no longer start, on the real engine with the sandbox image: containerd
 * kept the state of a start it was cut off in (the soak of 2026-12-01 02:45: after an engine
 * restart a runtime's start was refused every 10 s, "task &lt;id&gt;: already exists", until it was
 * released and its files with it). The test leaves what such a start leaves, an empty directory
 * named after the container it made, in the engine's own runtime directory; the revive that
 * follows replaces the container by a copy whose executor takes the new key, with the sandbox's
 * confinement, files and workspace.
 */
class StaleTaskIT {

    /** Where the engine of docker/ensure-engine.sh keeps its containers' task directories. */
    private static final Path TASKS = Path.of("/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby");
    private static final int PORT = 8000;
    private static final String RUN = HexFormat.of().formatHex(new byte[] {
            (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt(),
            (byte) ThreadLocalRandom.current().nextInt()});

    private final List<Path> staleDirectories = new ArrayList<>();
    private final List<String> keptVolumes = new ArrayList<>();
    private DockerClient docker;
    private DockerBackend backend;
    private String name;

    @BeforeEach
    void connect() {
        assumeTrue(Files.isWritable(TASKS), "not the engine of docker/ensure-engine.sh on this host: " + TASKS);
        docker = DockerNodeFactory.client("stale-task-it", Optional.empty(), Duration.ofSeconds(60), 4);
        name = "dockyard-it-stale-" + RUN + "-" + ThreadLocalRandom.current().nextInt(1000);
    }

    @AfterEach
    void remove() throws IOException {
        if (docker == null) {
            return;
        }
        try {
            // the sandbox, with what was made for it; any container a replacement set aside
            backend.remove(name);
            for (Container left : docker.listContainersCmd().withShowAll(true).withNameFilter(List.of(name)).exec()) {
                docker.removeContainerCmd(left.getId()).withForce(true).withRemoveVolumes(true).exec();
            }
            ContainerReplacement.removeKeptLayer(docker, name);
            keptVolumes.forEach(v -> docker.removeVolumeCmd(v).exec());
        } finally {
            for (Path directory : staleDirectories) {
                Files.deleteIfExists(directory);
            }
            docker.close();
        }
    }

    /**
     * A read-only root (the default): the copy has the old one's confinement and labels, mounts its
     * workspace and home again, and its executor takes the key the revive handed the old container
     * (an anonymous volume's, carried over); the old container and its volume are gone.
     */
    @Test
    void shouldReplaceAReadOnlyRootedSandboxItsEngineCannotStart() throws Exception {
        backend = backend(new SandboxHostSettings(true, Map.of("/tmp", "64m"), 0, null, 0));
        InspectContainerResponse old = createStartAndStop("the first key");
        backend.restore(name, "/workspace", tar("kept.txt", "in the workspace"));
        String keyVolume = old.getMounts().stream()
                .filter(m -> m.getDestination().getPath().equals(ContainerFiles.KEY_DIR)).findFirst().orElseThrow()
                .getName();
        leaveStaleTask(old.getId());

        URI revived = backend.revive(name, "the second key", "1000", PORT);

        assertTrue(takesKey(revived, "the second key"), "the copy's executor boots with the new key");
        InspectContainerResponse copy = docker.inspectContainerCmd(name).exec();
        assertNotEquals(old.getId(), copy.getId(), "a new container");
        assertEquals(old.getHostConfig().getReadonlyRootfs(), copy.getHostConfig().getReadonlyRootfs());
        assertEquals(old.getHostConfig().getTmpFs(), copy.getHostConfig().getTmpFs());
        assertEquals(List.of(old.getHostConfig().getBinds()), List.of(copy.getHostConfig().getBinds()));
        assertEquals(old.getHostConfig().getNetworkMode(), copy.getHostConfig().getNetworkMode());
        assertEquals(List.of(old.getHostConfig().getCapDrop()), List.of(copy.getHostConfig().getCapDrop()));
        assertEquals(old.getHostConfig().getSecurityOpts(), copy.getHostConfig().getSecurityOpts());
        assertEquals(old.getHostConfig().getMemory(), copy.getHostConfig().getMemory());
        assertEquals(old.getHostConfig().getPidsLimit(), copy.getHostConfig().getPidsLimit());
        assertEquals(old.getHostConfig().getInit(), copy.getHostConfig().getInit());
        assertEquals(old.getConfig().getLabels(), copy.getConfig().getLabels());
        assertEquals(old.getConfig().getUser(), copy.getConfig().getUser());
        assertEquals("in the workspace", read(name, "/workspace/kept.txt"));
        assertThrows(NotFoundException.class, () -> docker.inspectContainerCmd(old.getId()).exec(), "the old one is gone");
        assertThrows(NotFoundException.class, () -> docker.inspectVolumeCmd(keyVolume).exec(),
                "with its anonymous volume");
        assertEquals(1, docker.listContainersCmd().withShowAll(true).withNameFilter(List.of(name)).exec().size(),
                "nothing set aside");
    }

    /**
     * A writable root: what was written into it is in the copy, through an image that holds no
     * session key (blanked before the commit) and goes when the sandbox is removed keeping its
     * workspace (whose move runs that image first).
     */
    @Test
    void shouldCarryAWritableRootOverWithoutItsKeyAndRemoveItsImageWithTheSandbox() throws Exception {
        backend = backend(SandboxHostSettings.ENGINE_DEFAULTS);
        InspectContainerResponse old = createStartAndStop("the first key");
        backend.restore(name, "/opt", tar("marker.txt", "written into the root"));
        backend.restore(name, "/workspace", tar("kept.txt", "in the workspace"));
        leaveStaleTask(old.getId());

        URI revived = backend.revive(name, "the second key", "1000", PORT);

        assertTrue(takesKey(revived, "the second key"), "the copy's executor boots with the new key");
        assertEquals("written into the root", read(name, "/opt/marker.txt"));
        String image = ContainerReplacement.imageOf(name);
        assertEquals(docker.inspectImageCmd(image).exec().getId(), docker.inspectContainerCmd(name).exec().getImageId(),
                "the copy runs the committed layer");
        String scratch = docker.createContainerCmd(image).exec().getId();
        try {
            assertEquals("", read(scratch, ContainerFiles.KEY_DIR + "/" + ContainerFiles.KEY_FILE),
                    "the image holds the key file emptied");
        } finally {
            docker.removeContainerCmd(scratch).withForce(true).exec();
        }

        String kept = name + "-kept";
        keptVolumes.add(kept);
        assertEquals(kept, backend.keepWorkspace(name, kept, Map.of("dockyard.it", "stale-task")));
        docker.inspectVolumeCmd(kept).exec();
        assertThrows(NotFoundException.class, () -> docker.inspectImageCmd(image).exec(), "removed with its sandbox");
    }

    private DockerBackend backend(SandboxHostSettings settings) {
        return new DockerBackend(docker, new WorkspaceVolumes(docker, null, 0, Clock.systemUTC()), settings,
                DockerBackend.DEFAULT_EGRESS_HELPER);
    }

    /** A sandbox created, booted with {@code key} (so its executor has deleted its key file), and stopped. */
    private InspectContainerResponse createStartAndStop(String key) throws Exception {
        backend.create(new SandboxSpec("rt-stale-" + RUN, "conv-stale-" + RUN, "stale-task-it-" + RUN, name,
                "dockyard/sandbox:latest", 1, 0, 512, 256, "1000", PORT, key, List.of(), null, List.of()));
        assertTrue(takesKey(backend.start(name, PORT), key), "booted");
        backend.stop(name);
        return docker.inspectContainerCmd(name).exec();
    }

    /** What a start that containerd's going away cut off leaves: the task's directory, named by the container's id. */
    private void leaveStaleTask(String containerId) throws IOException {
        staleDirectories.add(Files.createDirectory(TASKS.resolve(containerId)));
    }

    /** Whether the executor at {@code endpoint} takes {@code key}, asked for at most a minute. */
    private static boolean takesKey(URI endpoint, String key) throws InterruptedException {
        return ExecutorKeys.takes(endpoint, key, Duration.ofSeconds(60)).orElse(false);
    }

    private static InputStream tar(String file, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            TarArchiveEntry entry = new TarArchiveEntry(file);
            entry.setSize(bytes.length);
            entry.setMode(0100644);
            tar.putArchiveEntry(entry);
            tar.write(bytes);
            tar.closeArchiveEntry();
        }
        return new ByteArrayInputStream(out.toByteArray());
    }

    /** The content of one file of a container, through the engine. */
    private String read(String container, String path) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                docker.copyArchiveFromContainerCmd(container, path).exec())) {
            tar.getNextEntry();
            return new String(tar.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
