package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The local backend (node {@code local1}, ControlPlaneSettings): runtimes as host processes of the executor
 * bundle. Each runtime's process is found by the record the control plane keeps (pid and start
 * time) and checked in /proc, never by its name: DELETE and a kill -9 of the control plane must
 * leave no process and no directory; the sandbox user reads none of the control plane's files; a
 * warm pool keeps local sandboxes. On the disposable control plane (its kill -9), with a local root of its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class LocalBackendIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String NODE = "local1";
    private static final Path ROOT = DisposableControlPlane.localRoot();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> CREATED = new ArrayList<>();
    private static final String POOL = "it-local";
    private static final int POOL_MEMORY = 704;

    /** A process as the record names it: pid and start time (/proc/<pid>/stat field 22). */
    record Recorded(long pid, long startTime) {
        /** Whether that very process still runs (not exited, not a zombie, not a reused pid). */
        boolean running() {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(fields[19]) == startTime && !fields[0].equals("Z");
            } catch (NoSuchFileException e) {
                return false;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    @AfterAll
    static void removeWhatIsLeft() {
        API.delete("pools/" + POOL);
        for (String id : CREATED) {
            API.delete("runtimes/" + id);
        }
        for (String id : CREATED) {
            assertFalse(Files.exists(sandboxDir(id)), "directory of " + id + " left behind");
        }
    }

    private static Path sandboxDir(String runtimeId) {
        return ROOT.resolve("sandboxes").resolve("dockyard-" + runtimeId);
    }

    private static Path recordFile(String runtimeId) {
        return ROOT.resolve("records").resolve("dockyard-" + runtimeId + ".properties");
    }

    private static Optional<Recorded> recorded(String runtimeId) {
        try {
            Properties p = new Properties();
            p.load(new StringReader(Files.readString(recordFile(runtimeId))));
            if (p.getProperty("pid") == null) {
                return Optional.empty();
            }
            return Optional.of(new Recorded(Long.parseLong(p.getProperty("pid")), Long.parseLong(p.getProperty("start-time"))));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static JsonObject provisionReady(String name) {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", "it-local-" + RUN
                + "-" + name).add("node", NODE).build(), 180);
        if (answer.status() == 201 || answer.status() == 202) {
            CREATED.add(answer.json().getString("id"));
        }
        assertEquals(201, answer.status(), answer.body());
        assertEquals("READY", answer.json().getString("status"), answer.body());
        return answer.json();
    }

    private static String status(String id) {
        return API.get("runtimes/" + id).json().getString("status");
    }

    @Test
    @Order(1)
    void shouldProvisionActAndDeleteLeavingNoProcessNorDirectory() {
        long started = System.nanoTime();
        JsonObject runtime = provisionReady("main");
        long readyMillis = (System.nanoTime() - started) / 1_000_000;
        String id = runtime.getString("id");
        assertEquals("local", runtime.getString("backend"));
        assertEquals(NODE, runtime.getString("node"));
        Recorded process = recorded(id).orElseThrow();
        assertTrue(process.running());

        JsonObject hello = API.act(id, DockyardApi.run("echo hello; pwd; id -un"));
        assertEquals(0, hello.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"), hello.toString());
        List<String> lines = hello.getString("content").lines().toList();
        assertEquals("hello", lines.get(0));
        assertEquals(sandboxDir(id).resolve("workspace").toString(), lines.get(1), "the shell starts in the workspace");
        assertEquals("dockyard-sandbox", lines.get(2), "an unprivileged user of its own");
        // a process the agent leaves running in the background, in a session of its own, goes too
        API.act(id, DockyardApi.run("setsid sleep 600 > /dev/null 2>&1 < /dev/null & echo started"));
        JsonObject written = API.act(id, Json.createObjectBuilder().add("action", "write").add("args",
                Json.createObjectBuilder().add("path", "notes.txt").add("content", "local")).build());
        assertEquals("write", written.getString("observation"), written.toString());
        assertTrue(Files.exists(sandboxDir(id).resolve("workspace/notes.txt")));

        assertEquals(204, API.delete("runtimes/" + id).status());
        assertFalse(process.running(), "the executor's process (pid " + process.pid() + ") still runs");
        assertFalse(Files.exists(sandboxDir(id)), "the sandbox's directory is gone");
        assertFalse(Files.exists(recordFile(id)));
        assertEquals("", pgrepSandbox("dockyard-" + id), "no process of the sandbox is left");
        System.out.println("local backend: READY in " + readyMillis + " ms (cold)");
    }

    /** The pids of processes still carrying the sandbox's variable (its whole tree, detached or not). */
    private static String pgrepSandbox(String name) {
        StringBuilder found = new StringBuilder();
        try (var entries = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path entry : entries) {
                try {
                    String environ = new String(Files.readAllBytes(entry.resolve("environ")));
                    if (List.of(environ.split("\0")).contains("DOCKYARD_SANDBOX=" + name)) {
                        found.append(entry.getFileName()).append(' ');
                    }
                } catch (IOException gone) {
                    // exited meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return found.toString().strip();
    }

    @Test
    @Order(2)
    void shouldKeepTheControlPlanesFilesFromTheSandboxUser() {
        String id = provisionReady("snoop").getString("id");
        Path serverLog = DisposableControlPlane.serverLog();
        Path output = DisposableControlPlane.server().output();
        assertTrue(Files.isReadable(serverLog), "the test itself reads " + serverLog);
        for (String command : List.of("cat " + serverLog, "ls " + output, "ls " + output.resolve("dockyard"),
                "cat " + ROOT.resolve("records").resolve("dockyard-" + id + ".properties"))) {
            JsonObject tried = API.act(id, DockyardApi.run(command));
            int exit = tried.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code");
            assertNotEquals(0, exit, command + ": " + tried);
            String content = tried.getString("content");
            // a control plane under /tmp is not even there: the sandbox has a /tmp of its own
            assertTrue(content.contains("Permission denied") || (command.contains(" /tmp/")
                    && content.contains("No such file or directory")), command + ": " + tried);
            assertFalse(content.contains("CWWK"), "nothing of the server's log: " + content);
        }
        API.delete("runtimes/" + id);
    }

    @Test
    @Order(3)
    void shouldKeepAWarmPoolOfLocalSandboxes() {
        DockyardApi.Answer created = API.put("pools/" + POOL, Json.createObjectBuilder().add("size", 2)
                .add("memoryMb", POOL_MEMORY).add("node", NODE).build());
        assertEquals(201, created.status(), created.body());
        Awaitility.await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .until(() -> API.get("pools/" + POOL).json().getInt("ready") == 2);
        long started = System.nanoTime();
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", "it-local-" + RUN
                + "-warm").add("node", NODE).add("sandbox", Json.createObjectBuilder().add("memoryMb", POOL_MEMORY)
                .add("env", Json.createObjectBuilder().add("CANARY", "warm-" + RUN))).build(), 120);
        long claimMillis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(201, answer.status(), answer.body());
        JsonObject runtime = answer.json();
        String id = runtime.getString("id");
        CREATED.add(id);
        assertEquals(POOL, runtime.getString("pool", null), answer.body());
        assertEquals("local", runtime.getString("backend"));
        assertEquals("CANARY=warm-" + RUN, API.act(id, DockyardApi.run("env | grep '^CANARY='")).getString("content")
                .strip());
        Recorded process = recorded(id).orElseThrow();
        assertTrue(process.running());
        System.out.println("local backend: READY from a warm pool in " + claimMillis + " ms");
        // the pool refills on the local node
        Awaitility.await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .until(() -> API.get("pools/" + POOL).json().getInt("ready") == 2);
        assertEquals(204, API.delete("pools/" + POOL).status());
        API.delete("runtimes/" + id);
        assertFalse(process.running());
        assertFalse(Files.exists(sandboxDir(id)));
    }

    @Test
    @Order(4)
    void shouldLeaveNoProcessNorDirectoryOfADeadRuntimeAfterKillNine() throws Exception {
        JsonObject ready = provisionReady("survivor");
        String survivor = ready.getString("id");
        Recorded survivorProcess = recorded(survivor).orElseThrow();
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String conversation = "it-local-" + RUN + "-kill-" + i;
            posts.add(CompletableFuture.supplyAsync(() -> API.post("runtimes", Json.createObjectBuilder()
                    .add("conversationId", conversation).add("node", NODE).build())));
        }
        List<String> booting = new ArrayList<>();
        for (CompletableFuture<DockyardApi.Answer> post : posts) {
            DockyardApi.Answer answer = post.get();
            assertEquals(202, answer.status(), answer.body());
            booting.add(answer.json().getString("id"));
        }
        CREATED.addAll(booting);
        // kill while at least one executor is up and still booting (no READY recorded)
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> booting.stream().anyMatch(id -> recorded(id).isPresent()));
        List<Recorded> atKill = new ArrayList<>();
        DisposableControlPlane.server().killNine();
        for (String id : booting) {
            recorded(id).ifPresent(atKill::add);
        }
        assertFalse(atKill.isEmpty());
        long restartedAt = System.nanoTime();
        DisposableControlPlane.server().start();
        // from when the restarted server answers: its own boot (over a minute on a loaded machine) is not the backend's
        long upAt = System.nanoTime();

        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() ->
                booting.stream().allMatch(id -> {
                    String status = status(id);
                    boolean live = status.equals("READY") || status.equals("PAUSED");
                    boolean dead = status.equals("ERROR") || status.equals("STOPPED");
                    return (live && recorded(id).map(Recorded::running).orElse(false))
                            || (dead && !Files.exists(sandboxDir(id)) && !Files.exists(recordFile(id)));
                }));
        long seconds = (System.nanoTime() - upAt) / 1_000_000_000;
        System.out.println("local backend: kill -9 with " + atKill.size() + " executors booting; reconciled "
                + seconds + " s after the restarted server answered (" + (System.nanoTime() - restartedAt) / 1_000_000_000
                + " s after the restart began); statuses " + booting.stream().map(LocalBackendIT::status).toList());
        assertTrue(seconds <= 60, "reconciled " + seconds + " s after the restart");
        for (Recorded process : atKill) {
            boolean adopted = booting.stream().anyMatch(id -> recorded(id).filter(process::equals).isPresent());
            assertTrue(adopted || !process.running(), "process " + process + " of a dead runtime still runs");
        }
        // the READY runtime was adopted: its process is the same one, and it still answers
        assertTrue(survivorProcess.running());
        assertEquals("READY", status(survivor));
        assertEquals("after", API.act(survivor, DockyardApi.run("echo after")).getString("content").strip());

        for (String id : CREATED) {
            API.delete("runtimes/" + id);
        }
        for (String id : booting) {
            assertFalse(Files.exists(sandboxDir(id)));
            assertFalse(Files.exists(recordFile(id)));
        }
        assertFalse(survivorProcess.running());
        for (Recorded process : atKill) {
            assertFalse(process.running());
        }
    }
    @Test
    @Order(5)
    void shouldMigrateAWorkspaceFromDockerToLocalAndBack() {
        DockyardApi.Answer docker = API.provision(Json.createObjectBuilder().add("conversationId", "it-local-" + RUN
                + "-move").add("node", "local").build(), 180);
        assertEquals(201, docker.status(), docker.body());
        String dockerId = docker.json().getString("id");
        CREATED.add(dockerId);
        API.act(dockerId, DockyardApi.run("mkdir -p /workspace/proj && echo from-docker > /workspace/proj/a.txt"));

        DockyardApi.Answer moved = API.migrate(dockerId, "{\"node\": \"" + NODE + "\"}", null, 180);
        assertEquals(201, moved.status(), moved.body());
        String localId = moved.json().getString("id");
        CREATED.add(localId);
        assertEquals(NODE, moved.json().getString("node"));
        assertEquals("local", moved.json().getString("backend"));
        assertEquals("from-docker", API.act(localId, DockyardApi.run("cat proj/a.txt")).getString("content").strip());
        assertEquals("from-local", API.act(localId, DockyardApi.run("echo from-local > proj/b.txt && cat proj/b.txt"))
                .getString("content").strip(), "the moved files are the local sandbox user's");

        DockyardApi.Answer back = API.migrate(localId, "{\"node\": \"local\"}", null, 180);
        assertEquals(201, back.status(), back.body());
        String backId = back.json().getString("id");
        CREATED.add(backId);
        assertEquals("docker", back.json().getString("backend"));
        assertEquals("from-docker\nfrom-local\nok", API.act(backId, DockyardApi.run(
                "cd /workspace/proj && cat a.txt b.txt && echo more >> b.txt && echo ok")).getString("content").strip(),
                "the files came back, writable by the container's user");
        assertFalse(Files.exists(sandboxDir(localId)), "the local sandbox went with the migration");
        API.delete("runtimes/" + backId);
    }

    @Test
    @Order(6)
    void shouldNeverArchiveWhatAWorkspaceTurnedLinkLeadsTo() {
        String id = provisionReady("link").getString("id");
        // the sandbox user owns its directory: it may put a link where its workspace was
        assertEquals("swapped", API.act(id, DockyardApi.run("cd .. && mv workspace workspace.real && ln -s / workspace "
                + "&& echo swapped")).getString("content").strip());

        DockyardApi.Answer failed = API.migrate(id, "{\"node\": \"local\"}", null, 180);
        JsonObject runtime = failed.json();
        if (runtime.containsKey("id")) {
            CREATED.add(runtime.getString("id"));
        }
        assertEquals("ERROR", runtime.getString("status"), failed.body());
        assertTrue(runtime.getString("statusMessage").contains("is not a directory (a link is never followed)"),
                runtime.getString("statusMessage"));
        assertEquals("READY", status(id), "the old runtime serves on");
        API.delete("runtimes/" + id);
        assertFalse(Files.exists(sandboxDir(id)), "removed, the link with it and nothing it led to");
        assertTrue(Files.exists(Path.of("/etc/passwd")));
    }
}
