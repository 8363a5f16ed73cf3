package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Frame;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sandbox whose bounded workspace disk was left frozen, on the real engine with loop disks: a
 * snapshot freezes the file system for its copy, and the soak of 2026-12-01 08:02 killed the
 * control plane during one. The sandbox's next write hung in the kernel, its executor never
 * answered, and the engine could not remove it ("tried to kill container, but did not receive an
 * exit event"); its volumes stayed. Now the freeze, copy and thaw run in a shell of their own that
 * outlives its caller, and a removal that fails thaws the sandbox's disks and tries again.
 */
class FrozenWorkspaceIT {

    private static final int PORT = 8000;
    private static final String RUN = HexFormat.of().formatHex(new byte[] {
            (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});

    private final List<String> frozen = new ArrayList<>();
    private final List<String> volumes = new ArrayList<>();
    private Path disksDir;
    private DockerClient docker;
    private WorkspaceVolumes workspaces;
    private DockerBackend backend;
    private String name;

    @BeforeEach
    void connect() throws IOException {
        disksDir = Files.createTempDirectory("dockyard-frozen-it-");
        Optional<String> impossible = LoopDisks.probe(disksDir, System.getenv("DOCKER_HOST"));
        assumeTrue(impossible.isEmpty(), "no loop disks here: " + impossible.orElse(""));
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/fsfreeze")) || Files.isExecutable(Path.of("/sbin/fsfreeze")),
                "no fsfreeze (util-linux)");
        docker = DockerNodeFactory.client("frozen-it", Optional.empty(), Duration.ofSeconds(60), 4);
        workspaces = new WorkspaceVolumes(docker, new LoopDisks(disksDir), 64, Clock.systemUTC());
        backend = new DockerBackend(docker, workspaces, SandboxHostSettings.ENGINE_DEFAULTS,
                DockerBackend.DEFAULT_EGRESS_HELPER);
        name = "dockyard-it-frozen-" + RUN + "-" + ThreadLocalRandom.current().nextInt(1000);
    }

    @AfterEach
    void remove() throws Exception {
        if (docker == null) {
            return;
        }
        try {
            // whatever a failed test left frozen first: a frozen disk's sandbox cannot be removed
            for (String mountpoint : frozen) {
                command("fsfreeze", "-u", mountpoint);
            }
            backend.remove(name);
            for (String volume : volumes) {
                workspaces.remove(volume);
            }
        } finally {
            docker.close();
            try (var left = Files.list(disksDir)) {
                left.forEach(p -> p.toFile().delete());
            }
            Files.deleteIfExists(disksDir);
        }
    }

    @Test
    void shouldRemoveASandboxWhoseProcessIsStuckWritingToAFrozenWorkspace() throws Exception {
        String workspace = started();
        frozenWithAStuckWriter(workspace);

        backend.remove(name);

        assertThrows(NotFoundException.class, () -> docker.inspectContainerCmd(name).exec(), "the sandbox is gone");
        assertThrows(NotFoundException.class, () -> docker.inspectVolumeCmd(workspace).exec(), "with its workspace");
        assertTrue(Files.notExists(disksDir.resolve(workspace + ".img")), "and the workspace's disk");
    }

    @Test
    void shouldLeaveAWorkspaceInUseWritableAfterCopyingIt() throws Exception {
        String workspace = started();
        assertEquals(0, exitOf(exec("echo before > /workspace/copied.txt")));
        String copy = name + "-copy";
        volumes.add(copy);
        // thawed after the test whatever the copy left
        frozen.add(docker.inspectVolumeCmd(workspace).exec().getMountpoint());

        workspaces.copy(workspace, copy, "dockyard/sandbox:latest", Map.of("dockyard.it", "frozen"), true);

        assertEquals(0, exitOf(exec("echo after > /workspace/after.txt")), "a write goes through at once");
        String mountpoint = docker.inspectVolumeCmd(workspace).exec().getMountpoint();
        assertEquals(1, command("fsfreeze", "-u", mountpoint), "not frozen: nothing to thaw");
        assertTrue(Files.size(disksDir.resolve(copy + ".img")) > 0, "the copy's disk is there");
    }

    @Test
    void shouldLeaveAFreezeItDidNotMakeWhenItCannotFreeze() throws Exception {
        String workspace = started();
        // another copy's freeze, held for its copy
        String mountpoint = freeze(workspace);
        String copy = name + "-copy";
        volumes.add(copy);

        assertThrows(BackendException.class, () -> workspaces.copy(workspace, copy, "dockyard/sandbox:latest",
                Map.of("dockyard.it", "frozen"), true), "a file system frozen already cannot be frozen");

        assertEquals(0, command("fsfreeze", "-u", mountpoint), "the other copy's freeze is still held");
        assertTrue(Files.notExists(disksDir.resolve(copy + ".img")), "and no half copy is left");
    }

    /**
     * A process in the kernel for a reason the removal cannot end: the engine's kill gives up on it
     * after 12 s ("did not receive an exit event"), and it dies only later, once its I/O ends (a
     * loop disk's under load, in the soak of 2026-12-02 00:54: 2 deletes and a stop answered
     * {@code 502}). Here the disk stays frozen past the engine's 12 s, and a removal that cannot thaw
     * it (no loop disks of its own) waits for the container's exit and removes it; it failed with
     * the soak's words before.
     */
    @Test
    void shouldRemoveASandboxWhoseProcessDiesOnlyAfterTheEnginesKillGaveUp() throws Exception {
        String mountpoint = frozenWithAStuckWriter(started());
        SandboxRemoval cannotThaw = new SandboxRemoval(docker, new WorkspaceVolumes(docker, null, 64, Clock.systemUTC()),
                null, null, null, Duration.ofSeconds(40));
        Thread thaw = new Thread(() -> {
            try {
                // past the engine's 12 s of waiting for the kill
                Thread.sleep(20_000);
                command("fsfreeze", "-u", mountpoint);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        thaw.start();
        try {
            long started = System.nanoTime();
            cannotThaw.removeContainer(name);
            assertTrue(System.nanoTime() - started > TimeUnit.SECONDS.toNanos(15), "the engine's kill gave up first");
        } finally {
            thaw.join();
        }

        assertThrows(NotFoundException.class, () -> docker.inspectContainerCmd(name).exec(), "the sandbox is gone");
    }

    /** Freezes the workspace's disk and has a process of the sandbox stuck writing to it; its mountpoint. */
    private String frozenWithAStuckWriter(String workspace) throws Exception {
        String mountpoint = freeze(workspace);
        // not through a shell: the exec's own process is the one that writes
        String writer = run("mkdir", "/workspace/stuck");
        assertTrue(stuckInTheKernel(writer), "the write hangs on the frozen disk");
        return mountpoint;
    }

    /** Freezes the workspace's disk, as a copy cut off leaves it (thawed after the test); its mountpoint. */
    private String freeze(String workspace) throws Exception {
        String mountpoint = docker.inspectVolumeCmd(workspace).exec().getMountpoint();
        // fsfreeze freezes whatever file system holds the path: only ever the sandbox's own disk
        assertTrue(Files.readAllLines(Path.of("/proc/self/mounts")).stream().map(l -> l.split(" "))
                .anyMatch(f -> f.length > 1 && f[1].equals(mountpoint) && f[0].contains(workspace)),
                "the workspace's disk is mounted at " + mountpoint);
        frozen.add(mountpoint);
        assertEquals(0, command("fsfreeze", "-f", mountpoint), "frozen");
        return mountpoint;
    }

    /**
     * Whether the exec's process is waiting in the kernel (state D), looked for during 10 s: a
     * write to a frozen file system blocks there until the thaw.
     */
    private boolean stuckInTheKernel(String exec) throws Exception {
        for (int i = 0; i < 100; i++) {
            InspectExecResponse state = docker.inspectExecCmd(exec).exec();
            Long pid = state.getPidLong();
            if (!Boolean.TRUE.equals(state.isRunning())) {
                return false;
            }
            if (pid != null && pid > 0 && Files.readString(Path.of("/proc/" + pid + "/stat")).matches("(?s).*\\) D .*")) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** The sandbox created and booted; its workspace volume. */
    private String started() throws Exception {
        backend.create(new SandboxSpec("rt-frozen-" + RUN, "conv-frozen-" + RUN, "frozen-it-" + RUN, name,
                "dockyard/sandbox:latest", 1, 0, 512, 256, "1000", PORT, "a key", List.of(), null, List.of()));
        URI endpoint = backend.start(name, PORT);
        assertTrue(ExecutorKeys.takes(endpoint, "a key", Duration.ofSeconds(60)).orElse(false), "booted");
        String workspace = SandboxWorkspace.ownVolume(name);
        assertTrue(docker.inspectContainerCmd(name).exec().getMounts().stream()
                .anyMatch(m -> workspace.equals(m.getName())), "its workspace is a disk of its own");
        return workspace;
    }

    /** Starts {@code script} in the sandbox as its user, detached; the exec's id. */
    private String exec(String script) throws InterruptedException {
        return run("sh", "-c", script);
    }

    /** Starts the command in the sandbox as its user, detached; the exec's id. */
    private String run(String... command) throws InterruptedException {
        String id = docker.execCreateCmd(name).withUser("1000").withCmd(command).exec().getId();
        docker.execStartCmd(id).withDetach(true).exec(new ResultCallback.Adapter<Frame>()).awaitCompletion(5,
                TimeUnit.SECONDS);
        return id;
    }

    /** The exit code of an exec, waited for at most 10 s. */
    private int exitOf(String exec) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            InspectExecResponse state = docker.inspectExecCmd(exec).exec();
            if (!Boolean.TRUE.equals(state.isRunning())) {
                return state.getExitCodeLong().intValue();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the exec did not end within 10 s");
    }

    private static int command(String... line) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        process.getInputStream().transferTo(OutputStream.nullOutputStream());
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
