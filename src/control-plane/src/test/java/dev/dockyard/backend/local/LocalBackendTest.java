package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local backend with real host processes: a stand-in bundle whose start-executor checks and
 * consumes its key, starts a child in a session of its own (as the executor's shell does under
 * script(1)) and then waits.
 */
class LocalBackendTest {

    /** The stand-in executor (also {@link LocalBackendContractTest}'s). */
    static final String START_EXECUTOR = """
            #!/bin/bash
            set -eu
            [ -s "$SESSION_API_KEY_FILE" ] || { echo "no key" >&2; exit 64; }
            cat "$SESSION_API_KEY_FILE" > "$DOCKYARD_WORKSPACE/../tmp/key-seen"
            rm -f "$SESSION_API_KEY_FILE"
            echo "$EXECUTOR_HOST:$EXECUTOR_PORT" > "$DOCKYARD_WORKSPACE/../tmp/listen"
            setsid sleep 300 < /dev/null > /dev/null 2>&1 &
            exec sleep 300
            """;

    @TempDir
    Path dir;

    private LocalBackend backend;
    private final ProcessTable processes = ProcessTable.host();
    private final List<Process> strays = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        backend = standIn(dir, processes);
    }

    /** A local node under {@code dir} whose bundle's start-executor is {@link #START_EXECUTOR}. */
    static LocalBackend standIn(Path dir, ProcessTable processes) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bundle/bin"));
        Files.writeString(bin.resolve("start-executor"), START_EXECUTOR);
        Files.setPosixFilePermissions(bin.resolve("start-executor"), PosixFilePermissions.fromString("rwxr-xr-x"));
        LocalNodeConfig config = new LocalNodeConfig("local1", "unit", dir.resolve("root"), dir.resolve("bundle"),
                "ignored", Duration.ofSeconds(1), List.of("dockyard/sandbox:latest"), false, dir, "1000");
        long uid = (Integer) Files.getAttribute(dir, "unix:uid");
        return new LocalBackend(config, new SandboxUser("self", (int) uid, 0, false), processes,
                CgroupLimits.off("test"), Clock.systemUTC());
    }

    @AfterEach
    void tearDown() {
        for (String name : List.of("sb-a", "sb-b")) {
            backend.remove(name);
        }
        strays.forEach(Process::destroyForcibly);
    }

    private static SandboxSpec spec(String name, String controlPlane) {
        return new SandboxSpec("rt-" + name, "conv-" + name, controlPlane, name, "dockyard/sandbox:latest", 1, 0, 512,
                256, "1000", 8000, "key-of-" + name, List.of("jupyter"), null, List.of());
    }

    private List<Long> processesOf(String name) {
        return processes.carrying(LocalBackend.SANDBOX_VARIABLE, name, null);
    }

    /** Waits up to 5 s for {@code condition}; it is not asked again once met (a passing state may pass). */
    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        fail("not met within 5 s");
    }

    /** The fake executor is up: its two sleeps and nothing else (bash forks on its way there). */
    private boolean executorUp(String name) {
        return standInSettled(processes, name);
    }

    /** {@link #START_EXECUTOR} of sandbox {@code name} settled: its two sleeps and nothing else. */
    static boolean standInSettled(ProcessTable processes, String name) {
        List<Long> pids = processes.carrying(LocalBackend.SANDBOX_VARIABLE, name, null);
        return pids.size() == 2 && pids.stream().allMatch(p -> {
            try {
                return Files.readString(Path.of("/proc/" + p + "/cmdline")).startsWith("sleep");
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    void shouldHandTheKeyInAFileOnlyItsOwnerReads() throws Exception {
        backend.create(spec("sb-a", "cp"));
        Path key = backend.sandboxDir("sb-a").resolve("run/session-key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key.getParent())));
        assertEquals("key-of-sb-a", Files.readString(key));
        assertEquals("jupyter", Files.readString(key.resolveSibling("plugins")));
        assertEquals(SandboxState.Phase.CREATED, backend.inspect("sb-a").phase());
        String record = Files.readString(dir.resolve("root/records/sb-a.properties"));
        assertFalse(record.contains("key-of-sb-a"), "the key is never in the record");
    }

    @Test
    void shouldRunTheExecutorOnALoopbackPortAndKillItsWholeTreeOnRemove() throws Exception {
        backend.create(spec("sb-a", "cp"));
        URI endpoint = backend.start("sb-a", 8000);
        assertEquals("127.0.0.1", endpoint.getHost());
        Path tmp = backend.sandboxDir("sb-a").resolve("tmp");
        waitFor(() -> Files.exists(tmp.resolve("listen")) && executorUp("sb-a"));
        assertEquals("127.0.0.1:" + endpoint.getPort(), Files.readString(tmp.resolve("listen")).strip());
        assertEquals("key-of-sb-a", Files.readString(tmp.resolve("key-seen")));
        assertFalse(Files.exists(backend.sandboxDir("sb-a").resolve("run/session-key")), "consumed at boot");
        assertEquals(SandboxState.Phase.RUNNING, backend.inspect("sb-a").phase());
        List<Long> tree = processesOf("sb-a");

        backend.remove("sb-a");

        assertTrue(processesOf("sb-a").isEmpty());
        for (long pid : tree) {
            assertTrue(processes.stat(pid).map(ProcStat::exited).orElse(true), "pid " + pid + " still runs");
        }
        assertFalse(Files.exists(backend.sandboxDir("sb-a")));
        assertFalse(Files.exists(dir.resolve("root/records/sb-a.properties")));
        assertEquals(SandboxState.Phase.MISSING, backend.inspect("sb-a").phase());
        backend.remove("sb-a");
    }

    @Test
    void shouldKillWhatTheSandboxStillParentsThoughItDroppedTheVariable() throws Exception {
        Files.writeString(dir.resolve("bundle/bin/start-executor"), """
                #!/bin/bash
                rm -f "$SESSION_API_KEY_FILE"
                env -u DOCKYARD_SANDBOX setsid sleep 301 < /dev/null > /dev/null 2>&1 &
                echo $! > "$DOCKYARD_WORKSPACE/../tmp/unmarked"
                exec sleep 300
                """);
        backend.create(spec("sb-a", "cp"));
        backend.start("sb-a", 8000);
        Path unmarked = backend.sandboxDir("sb-a").resolve("tmp/unmarked");
        waitFor(() -> Files.exists(unmarked) && processesOf("sb-a").size() == 1);
        long escaped = Long.parseLong(Files.readString(unmarked).strip());
        waitFor(() -> {
            try {
                return Files.readString(Path.of("/proc/" + escaped + "/cmdline")).startsWith("sleep");
            } catch (IOException e) {
                return false;
            }
        });
        assertFalse(processesOf("sb-a").contains(escaped), "it carries no variable");

        backend.remove("sb-a");

        assertTrue(processes.stat(escaped).map(ProcStat::exited).orElse(true), "pid " + escaped + " still runs");
    }

    @Test
    void shouldFreezeAndThawEveryProcessOfTheSandbox() throws Exception {
        backend.create(spec("sb-a", "cp"));
        backend.start("sb-a", 8000);
        waitFor(() -> executorUp("sb-a"));
        backend.pause("sb-a");
        assertEquals(SandboxState.Phase.PAUSED, backend.inspect("sb-a").phase());
        waitFor(() -> processesOf("sb-a").stream().allMatch(p -> processes.stat(p).orElseThrow().stopped()));
        backend.unpause("sb-a");
        assertEquals(SandboxState.Phase.RUNNING, backend.inspect("sb-a").phase());
        waitFor(() -> processesOf("sb-a").stream().noneMatch(p -> processes.stat(p).orElseThrow().stopped()));

        // a process the agent suspended itself stays suspended through a pause and resume
        long leader = SandboxRecord.parse(Files.readString(dir.resolve("root/records/sb-a.properties"))).orElseThrow()
                .process().pid();
        long suspended = processesOf("sb-a").stream().filter(p -> p != leader).findFirst().orElseThrow();
        processes.signal("STOP", List.of(suspended));
        waitFor(() -> processes.stat(suspended).orElseThrow().stopped());
        backend.pause("sb-a");
        backend.unpause("sb-a");
        assertFalse(processes.stat(leader).orElseThrow().stopped());
        assertTrue(processes.stat(suspended).orElseThrow().stopped());
    }

    @Test
    void shouldStopAFrozenSandboxKeepingItsFilesForTheRevival() throws Exception {
        // listing, the phases and the key a revival hands: AbstractRuntimeBackendContractTest
        backend.create(spec("sb-a", "cp"));
        backend.start("sb-a", 8000);
        Path workspace = backend.sandboxDir("sb-a").resolve("workspace");
        Files.writeString(workspace.resolve("kept.txt"), "still here");
        waitFor(() -> executorUp("sb-a"));
        backend.pause("sb-a");
        backend.stop("sb-a");
        assertTrue(processesOf("sb-a").isEmpty(), "a frozen sandbox stops too");
        assertEquals("still here", Files.readString(workspace.resolve("kept.txt")));

        backend.revive("sb-a", "new-key", "1000", 8000);
        waitFor(() -> executorUp("sb-a"));
        assertEquals("still here", Files.readString(workspace.resolve("kept.txt")));
    }

    @Test
    void shouldStartTheExecutorOnItsServerAtEveryStartARevivalToo() throws Exception {
        Files.writeString(dir.resolve("bundle/bin/start-executor"), """
                #!/bin/bash
                rm -f "$SESSION_API_KEY_FILE"
                echo "${DOCKYARD_EXECUTOR_SERVER-unset}" > "$DOCKYARD_WORKSPACE/../tmp/server"
                exec sleep 300
                """);
        backend.create(spec("sb-a", "cp").withExecutorServer(ExecutorServer.LIBERTY));
        backend.start("sb-a", 8000);
        Path server = backend.sandboxDir("sb-a").resolve("tmp/server");
        waitFor(() -> Files.exists(server) && processesOf("sb-a").size() == 1);
        assertEquals("liberty", Files.readString(server).strip());

        backend.stop("sb-a");
        Files.delete(server);
        backend.revive("sb-a", "new-key", "1000", 8000);
        waitFor(() -> Files.exists(server));
        assertEquals("liberty", Files.readString(server).strip(), "the record keeps it: no spec at a revival");

        backend.create(spec("sb-b", "cp"));
        backend.start("sb-b", 8000);
        Path defaulted = backend.sandboxDir("sb-b").resolve("tmp/server");
        waitFor(() -> Files.exists(defaulted));
        assertEquals("embedded", Files.readString(defaulted).strip());

        // a sandbox recorded before the choice ran Liberty, the only server then: it comes back on it
        backend.stop("sb-b");
        Path record = dir.resolve("root/records/sb-b.properties");
        Files.writeString(record, Files.readString(record).replace("executor-server=embedded", ""));
        Files.delete(defaulted);
        backend.revive("sb-b", "new-key", "1000", 8000);
        waitFor(() -> Files.exists(defaulted));
        assertEquals("liberty", Files.readString(defaulted).strip());
    }

    @Test
    void shouldNeverSignalAProcessThatGotARecordedPid() throws Exception {
        backend.create(spec("sb-a", "cp"));
        // another process now holds the recorded pid: same pid, another start time
        Process unrelated = new ProcessBuilder("sleep", "300").start();
        strays.add(unrelated);
        long startTime = processes.identify(unrelated.pid()).orElseThrow().startTime();
        Path recordFile = dir.resolve("root/records/sb-a.properties");
        SandboxRecord record = SandboxRecord.parse(Files.readString(recordFile)).orElseThrow();
        Files.writeString(recordFile, record.running(new ProcessIdentity(unrelated.pid(), startTime - 1), 40000).format());

        assertEquals(SandboxState.Phase.EXITED, backend.inspect("sb-a").phase(), "a reused pid is a dead sandbox");
        assertEquals(SandboxState.Phase.EXITED, backend.listManaged("cp").get(0).phase());
        backend.pause("sb-a");
        backend.remove("sb-a");

        assertTrue(unrelated.isAlive());
        assertFalse(processes.stat(unrelated.pid()).orElseThrow().stopped());
        assertFalse(Files.exists(recordFile));
    }

    @Test
    void shouldMoveAWorkspaceAsATarWhoseTopEntryIsWorkspace() throws Exception {
        backend.create(spec("sb-a", "cp"));
        Path workspace = Files.createDirectories(backend.sandboxDir("sb-a").resolve("workspace/src"));
        Files.writeString(workspace.resolve("main.py"), "print('hi')\n");
        byte[] tar;
        try (InputStream archive = backend.archive("sb-a", "/workspace")) {
            tar = archive.readAllBytes();
        }
        Process list = new ProcessBuilder("tar", "-tvf", "-", "--numeric-owner").redirectErrorStream(true).start();
        list.getOutputStream().write(tar);
        list.getOutputStream().close();
        String entries = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(entries.contains("1000/1000") && entries.contains("workspace/src/main.py"), entries);

        backend.create(spec("sb-b", "cp"));
        backend.restore("sb-b", "/", new ByteArrayInputStream(tar));
        assertEquals("print('hi')\n", Files.readString(backend.sandboxDir("sb-b").resolve("workspace/src/main.py")));
        assertThrows(BackendException.class, () -> backend.archive("sb-a", "/etc"));
        assertThrows(BackendException.class, () -> backend.archive("sb-a", "/workspace/../etc"));
    }

    @Test
    void shouldNeverArchiveThroughALinkTheSandboxPutForItsWorkspace() throws Exception {
        backend.create(spec("sb-a", "cp"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "the server's");
        Path workspace = backend.sandboxDir("sb-a").resolve("workspace");
        Files.delete(workspace);
        Files.createSymbolicLink(workspace, outside);

        BackendException refused = assertThrows(BackendException.class, () -> backend.archive("sb-a", "/workspace/."));
        assertTrue(refused.getMessage().contains("not a directory"), refused.getMessage());

        Files.delete(workspace);
        Files.createDirectories(workspace.resolve("src"));
        Files.createSymbolicLink(workspace.resolve("src/lib"), outside);
        assertThrows(BackendException.class, () -> backend.archive("sb-a", "/workspace/src/lib/."));
    }

    @Test
    void shouldFailAnArchiveTarCouldNotMakeRatherThanEndItQuietly() throws Exception {
        backend.create(spec("sb-a", "cp"));
        try (InputStream archive = backend.archive("sb-a", "/workspace/missing")) {
            IOException failed = assertThrows(IOException.class, archive::readAllBytes);
            assertTrue(failed.getMessage().contains("tar exited with status 2") && failed.getMessage().contains("missing"),
                    failed.getMessage());
        } catch (IOException closing) {
            assertTrue(closing.getMessage().contains("missing"));
        }
    }

    @Test
    void shouldNeverWriteTheKeyThroughALinkInTheSandboxesDirectory() throws Exception {
        backend.create(spec("sb-a", "cp"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("session-key"), "not the sandbox's");
        Path run = backend.sandboxDir("sb-a").resolve("run");
        SafeTree.deleteTree(run);
        Files.createSymbolicLink(run, elsewhere);

        assertThrows(BackendException.class, () -> backend.revive("sb-a", "new-key", "1000", 8000));
        assertEquals("not the sandbox's", Files.readString(elsewhere.resolve("session-key")));
        assertEquals(List.of("session-key"), Files.list(elsewhere).map(p -> p.getFileName().toString()).toList());

        // a link where the key goes is replaced by the key, never written through
        Files.delete(run);
        Files.createDirectory(run);
        Files.createSymbolicLink(run.resolve("session-key"), elsewhere.resolve("session-key"));
        backend.revive("sb-a", "new-key", "1000", 8000);
        assertEquals("not the sandbox's", Files.readString(elsewhere.resolve("session-key")));
        Path seen = backend.sandboxDir("sb-a").resolve("tmp/key-seen");
        waitFor(() -> {
            try {
                return Files.readString(seen).equals("new-key");
            } catch (IOException e) {
                return false;
            }
        });
        try (var left = Files.list(dir.resolve("root/records"))) {
            assertTrue(left.noneMatch(p -> p.toString().endsWith(".tmp")), "nothing staged is left behind");
        }
    }

    @Test
    void shouldSendTheKeyOnlyToAListenerOfTheSandboxsOwnProcesses() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/perl")), "no perl here to listen with");
        // the executor stand-in listens from a child of the first process, as the JVM under a pid namespace's init
        Files.writeString(dir.resolve("bundle/bin/start-executor"), """
                #!/bin/bash
                rm -f "$SESSION_API_KEY_FILE"
                /usr/bin/perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "$ENV{EXECUTOR_HOST}:$ENV{EXECUTOR_PORT}",
                    Listen => 5, ReuseAddr => 1) or die "bind: $!"; sleep 300' &
                wait
                """);
        backend.create(spec("sb-a", "cp"));
        URI endpoint = backend.start("sb-a", 8000);
        waitFor(() -> backend.listensAt("sb-a", endpoint));
        assertTrue(backend.listensAt("sb-a", endpoint), "seen once, known while it lives");
        assertFalse(backend.listensAt("sb-a", URI.create("http://127.0.0.1:" + (endpoint.getPort() ^ 1))));

        // another process of the host took the port the sandbox's executor was to bind
        Path recordFile = dir.resolve("root/records/sb-a.properties");
        SandboxRecord record = SandboxRecord.parse(Files.readString(recordFile)).orElseThrow();
        URI taken;
        try (ServerSocket thief = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Files.writeString(recordFile, record.running(record.process(), thief.getLocalPort()).format());
            taken = URI.create("http://127.0.0.1:" + thief.getLocalPort());
            BackendException refused = assertThrows(BackendException.class, () -> backend.listensAt("sb-a", taken));
            assertTrue(refused.getMessage().contains("another process"), refused.getMessage());
        }
        assertFalse(backend.listensAt("sb-a", taken), "nothing listens there now");
    }

    @Test
    void shouldDeleteATreeWithoutFollowingItsLinks() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside/sub"));
        Files.writeString(outside.resolve("kept.txt"), "kept");
        Path tree = Files.createDirectories(dir.resolve("tree/a/b"));
        Files.writeString(tree.resolve("file.txt"), "gone");
        Files.createSymbolicLink(tree.resolve("to-outside"), outside);
        Files.createSymbolicLink(dir.resolve("tree/a/dangling"), dir.resolve("nowhere"));
        Path closed = Files.createDirectories(dir.resolve("tree/closed"));
        Files.writeString(closed.resolve("inside.txt"), "gone");
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("---------"));

        SafeTree.deleteTree(dir.resolve("tree"));

        assertFalse(Files.exists(dir.resolve("tree"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("kept", Files.readString(outside.resolve("kept.txt")));
        SafeTree.deleteTree(dir.resolve("tree"));
        Files.createSymbolicLink(dir.resolve("link"), outside);
        SafeTree.deleteTree(dir.resolve("link"));
        assertFalse(Files.exists(dir.resolve("link"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("kept", Files.readString(outside.resolve("kept.txt")), "a link given as the tree is removed, not followed");
    }

    @Test
    void shouldPutTheWholeTreeInTheSandboxesCgroupsWithItsLimitsWhereTheHostAllows() throws Exception {
        CgroupLimits real = CgroupLimits.probe(Path.of("/sys/fs/cgroup"), "dockyard-unit-" + ProcessHandle.current().pid());
        assumeTrue(real.enabled(), "no writable cgroups here: " + real.reason());
        LocalNodeConfig config = new LocalNodeConfig("local1", "unit", dir.resolve("root"), dir.resolve("bundle"),
                "ignored", Duration.ofSeconds(1), List.of("dockyard/sandbox:latest"), true, dir, "1000");
        long uid = (Integer) Files.getAttribute(dir, "unix:uid");
        LocalBackend limited = new LocalBackend(config, new SandboxUser("self", (int) uid, 0, false), processes, real,
                Clock.systemUTC());
        try {
            limited.create(spec("sb-a", "cp"));
            List<Path> cgroups = real.paths("sb-a");
            assertFalse(cgroups.isEmpty());
            limited.start("sb-a", 8000);
            waitFor(() -> executorUp("sb-a"));
            assertEquals(processesOf("sb-a").stream().sorted().toList(), real.members("sb-a").stream().sorted().toList(),
                    "every process of the sandbox, the detached one too, is in its cgroup");
            for (Path cgroup : cgroups) {
                Path memory = cgroup.resolve(Files.exists(cgroup.resolve("memory.max")) ? "memory.max" : "memory.limit_in_bytes");
                if (Files.exists(memory)) {
                    assertEquals(Long.toString(512L * 1024 * 1024), Files.readString(memory).strip());
                }
            }
            limited.remove("sb-a");
            assertTrue(processesOf("sb-a").isEmpty());
            for (Path cgroup : cgroups) {
                assertFalse(Files.exists(cgroup), cgroup + " removed with the sandbox");
            }
        } finally {
            limited.remove("sb-a");
            for (Path cgroup : real.paths("sb-a")) {
                Files.deleteIfExists(cgroup);
            }
            for (Path parent : List.of("cpu", "memory", "pids").stream().map(c -> Path.of("/sys/fs/cgroup", c)).toList()) {
                try (var found = Files.find(parent, 4, (p, a) -> p.getFileName().toString()
                        .equals("dockyard-unit-" + ProcessHandle.current().pid()))) {
                    for (Path group : found.toList()) {
                        Files.deleteIfExists(group);
                    }
                } catch (IOException | UncheckedIOException e) {
                    // not a v1 host
                }
            }
            Files.deleteIfExists(Path.of("/sys/fs/cgroup/dockyard-unit-" + ProcessHandle.current().pid()));
        }
    }

    @Test
    void shouldRefuseWhatAHostProcessCannotBe() {
        SandboxSpec program = new SandboxSpec("rt", "c", "cp", "sb-a", "python:3", 1, 0, 512, 256, "1000", 8000, "k",
                List.of(), new SandboxProcess(List.of("python"), null, Map.of(), null), List.of());
        assertThrows(BackendException.class, () -> backend.create(program));
        assertThrows(BackendException.class, () -> backend.create(spec("sb-a", "cp")
                .withEgress(new EgressPolicy(EgressPolicy.Mode.NONE, List.of()))));
        assertThrows(BackendException.class, () -> backend.create(spec("../escape", "cp")));
        assertEquals(SandboxState.Phase.MISSING, backend.inspect("sb-a").phase());
        backend.create(spec("sb-a", "cp"));
        assertThrows(BackendException.class, () -> backend.create(spec("sb-a", "cp")));
    }
}
