package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.CreatedContainerWatch;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The confinement of sandboxes on real engines (docs/backends.md: "Sandbox confinement"), on the control
 * plane's default configuration: a read-only root with a writable workspace, /tmp and home (a
 * volume of the sandbox's own), and a writable root for a runtime that asks; gVisor when asked
 * for, on the node whose engine has it (and a 400 naming the node that has not); GPUs as device
 * requests on the node that declares them (ControlPlaneSettings: node2 declares 2; no GPU exists here, so
 * the engine refuses to start the container and the runtime ends in ERROR, leaving nothing); and
 * only the extra networks an admin allows, never the host's.
 */
class SandboxConfinementIT {

    private static final DockyardApi API = new DockyardApi();
    private static final String EXTRA_NETWORK = "dockyard-it-extra";

    /** A node of the test's own, on an engine without gVisor. */
    private static final String PLAIN = ControlPlaneSettings.PLAIN_ENGINE;

    private static JsonObjectBuilder request(String name, JsonObjectBuilder sandbox) {
        return Json.createObjectBuilder().add("conversationId", "it-confine-" + name + "-" + UUID.randomUUID())
                .add("sandbox", sandbox);
    }

    private static String ready(JsonObjectBuilder body) {
        DockyardApi.Answer created = API.provision(body.build(), 180);
        assertEquals(201, created.status(), created.body());
        assertEquals("READY", created.json().getString("status"), created.body());
        return created.json().getString("id");
    }

    private static JsonObject run(String id, String command) {
        return API.act(id, DockyardApi.run(command));
    }

    private static int exitCode(JsonObject observation) {
        return observation.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code");
    }

    @Test
    void shouldKeepTheRootReadOnlyWhileWorkspaceTmpAndHomeStayWritable() {
        String id = ready(request("ro", Json.createObjectBuilder()));
        try {
            assertReadOnlyRootWithWritablePlaces(id);
            String container = "dockyard-" + id;
            assertEquals("true", DockerCli.inspect(container, "{{.HostConfig.ReadonlyRootfs}}"));
            assertTrue(DockerCli.inspect(container, "{{.HostConfig.SecurityOpt}}").contains("no-new-privileges"));
            assertEquals("nofile=16384:16384", DockerCli.inspect(container,
                    "{{range .HostConfig.Ulimits}}{{.Name}}={{.Soft}}:{{.Hard}}{{end}}"));
            // the key directory is the container's own volume: the key was handed in, and read and deleted at boot
            String mounts = DockerCli.inspect(container, "{{range .Mounts}}{{.Name}}:{{.Destination}} {{end}}");
            assertTrue(mounts.contains(":/opt/dockyard/run"), mounts);
            // the home: a named volume of the sandbox's own, which goes with it
            assertTrue(mounts.contains(container + "-home:/opt/dockyard/home"), mounts);
            assertFalse(DockerCli.ok("exec", container, "ls", "/opt/dockyard/run").contains("session-key"));
            // ... bounded like the workspace: a disk of its own (1024 MB by default), not the host's
            int homeMb = Integer.parseInt(run(id, "df -m --output=size \"$HOME\" | tail -1").getString("content")
                    .strip());
            assertTrue(homeMb > 900 && homeMb <= 1024, "home of " + homeMb + " MB");
            // blocking, up to 5 min: 1.1 GB written beside other suites can be silent for over the 10 s an
            // ordinary command gets before it is returned still running
            JsonObject fill = API.act(id, Json.createObjectBuilder().add("action", "run").add("args",
                    Json.createObjectBuilder().add("command", "dd if=/dev/zero of=\"$HOME/fill\" bs=1M count=1100 "
                            + "2>&1; echo \"dd=$?\"; rm -f \"$HOME/fill\"").add("blocking", true)).add("timeout", 300)
                    .build());
            assertTrue(fill.getString("content").contains("No space left on device"), fill.toString());
            assertFalse(fill.getString("content").contains("dd=0"), fill.toString());
        } finally {
            API.delete("runtimes/" + id);
        }
        assertTrue(DockerCli.ok("volume", "ls", "-q", "--filter", "name=dockyard-" + id + "-home").isBlank(),
                "the home volume went with the runtime");
        assertFalse(Files.exists(Path.of("/var/lib/dockyard/workspaces", "dockyard-" + id + "-home.img")),
                "and its disk");
    }

    /**
     * A runtime whose agent writes into the image's own files asks for a writable root: it gets
     * the root (and home) of the image; the question must be a boolean.
     */
    @Test
    void shouldGiveARuntimeThatAsksForItAWritableRoot() {
        String id = ready(request("rw", Json.createObjectBuilder().add("readOnlyRoot", false)));
        try {
            String container = "dockyard-" + id;
            assertEquals("false", DockerCli.inspect(container, "{{.HostConfig.ReadonlyRootfs}}"));
            JsonObject own = run(id, "touch /dockyard/wlp/dockyard-probe && echo \"$HOME\"");
            assertEquals(0, exitCode(own), own.toString());
            assertTrue(own.getString("content").strip().startsWith("/home/"), own.toString());
            assertFalse(DockerCli.inspect(container, "{{range .Mounts}}{{.Destination}} {{end}}")
                    .contains("/opt/dockyard/home"));
            // the sandbox user has no capabilities either way: the system's files stay out of reach
            assertNotEquals(0, exitCode(run(id, "touch /usr/dockyard-probe")));
        } finally {
            API.delete("runtimes/" + id);
        }
        DockyardApi.Answer refused = API.provision(request("rw-bad", Json.createObjectBuilder()
                .add("readOnlyRoot", "no")).build(), 30);
        assertEquals(400, refused.status(), refused.body());
        assertTrue(refused.contentType().startsWith("application/problem+json"), refused.contentType());
        assertTrue(refused.json().getString("detail").contains("sandbox.readOnlyRoot must be a boolean"),
                refused.body());
    }

    /** What the agent can and cannot write, seen from inside through the executor. */
    private static void assertReadOnlyRootWithWritablePlaces(String id) {
        assertNotEquals(0, exitCode(run(id, "touch /usr/dockyard-probe")));
        // the sandbox user's own files in the image: only a read-only root refuses them
        JsonObject own = run(id, "touch /dockyard/wlp/dockyard-probe");
        assertNotEquals(0, exitCode(own), own.toString());
        assertTrue(own.getString("content").contains("Read-only file system"), own.getString("content"));
        assertNotEquals(0, exitCode(run(id, "echo x > /etc/dockyard-probe")));
        JsonObject writable = run(id, "for d in /workspace /tmp /var/tmp \"$HOME\"; do echo ok > \"$d/probe\" "
                + "&& cat \"$d/probe\" && rm \"$d/probe\"; done");
        assertEquals(0, exitCode(writable), writable.toString());
        assertEquals("ok\nok\nok\nok", writable.getString("content").strip().replace("\r", ""));
        assertEquals("/opt/dockyard/home", run(id, "echo \"$HOME\"").getString("content").strip());
        assertEquals("16384", run(id, "ulimit -n").getString("content").strip());
    }

    @Test
    void shouldRunOnGvisorWhenAskedAndSayWhatItCosts() {
        List<Long> gvisorBoot = new ArrayList<>();
        List<Long> runcBoot = new ArrayList<>();
        List<Long> gvisorEcho = new ArrayList<>();
        List<Long> runcEcho = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            measure("runc", Json.createObjectBuilder(), runcBoot, runcEcho, false);
            measure("gvisor", Json.createObjectBuilder().add("runtimeClass", "gvisor"), gvisorBoot, gvisorEcho, true);
        }
        System.out.printf("gVisor vs runc: POST to READY median %d ms vs %d ms; echo round trip median %.1f ms vs "
                        + "%.1f ms (%d echoes each)%n", median(gvisorBoot), median(runcBoot), median(gvisorEcho) / 1000.0,
                median(runcEcho) / 1000.0, gvisorEcho.size());
    }

    private static void measure(String name, JsonObjectBuilder sandbox, List<Long> boots, List<Long> echoes,
                                boolean gvisor) {
        long started = System.nanoTime();
        String id = ready(request(name, sandbox));
        boots.add((System.nanoTime() - started) / 1_000_000);
        try {
            String container = "dockyard-" + id;
            assertEquals(gvisor ? "runsc" : "runc", DockerCli.inspect(container, "{{.HostConfig.Runtime}}"));
            // gVisor's own kernel answers inside, not the host's (this test runs on the engine's host)
            String kernel = run(id, "uname -r").getString("content").strip();
            assertEquals(gvisor, !kernel.equals(System.getProperty("os.version")), "kernel inside: " + kernel);
            if (gvisor) {
                assertReadOnlyRootWithWritablePlaces(id);
            }
            for (int i = 0; i < 20; i++) {
                long sent = System.nanoTime();
                JsonObject echo = run(id, "echo hi-" + i);
                echoes.add((System.nanoTime() - sent) / 1000);
                assertEquals("hi-" + i, echo.getString("content").strip());
            }
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /**
     * A node whose engine has no runsc: an engine of this test's own (docker/ensure-extra-engine.sh
     * gives its engines a configuration without the main engine's runtimes): the shared control
     * plane's node "plain", healthy while this test has it running.
     */
    @Test
    void shouldRefuseGvisorOnANodeWhoseEngineHasNoRunsc() throws Exception {
        Path root = Path.of(System.getProperty("dockyard.bundle")).toAbsolutePath().getParent().getParent().getParent();
        Path pidFile = Path.of("/var/run/dockyard-" + PLAIN + ".pid");
        boolean ours = !(Files.exists(pidFile) && ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip()))
                .map(ProcessHandle::isAlive).orElse(false));
        Process start = new ProcessBuilder("bash", root.resolve("docker/ensure-extra-engine.sh").toString(), PLAIN)
                .redirectErrorStream(true).start();
        String log = new String(start.getInputStream().readAllBytes());
        assertTrue(start.waitFor(120, TimeUnit.SECONDS) && start.exitValue() == 0, log);
        try {
            assertTrue(!DockerCli.ok("-H", "unix:///var/run/dockyard-" + PLAIN + ".sock", "info", "--format",
                    "{{json .Runtimes}}").contains("runsc"), "the test's own engine must not have runsc");
            // node "plain" of the shared control plane (ControlPlaneSettings): up once its engine is
            API.awaitHealthyNode(PLAIN, Duration.ofSeconds(60));
            DockyardApi.Answer refused = API.provision(request("no-gvisor", Json.createObjectBuilder()
                    .add("runtimeClass", "gvisor")).add("node", PLAIN).build(), 30);
            assertEquals(400, refused.status(), refused.body());
            assertTrue(refused.contentType().startsWith("application/problem+json"), refused.contentType());
            assertEquals(PLAIN, refused.json().getString("node"));
            assertTrue(refused.json().getString("detail").contains("backend node '" + PLAIN + "' does not offer "
                    + "runtime class 'gvisor'"), refused.body());
            assertEquals(400, API.provision(request("kata", Json.createObjectBuilder().add("runtimeClass", "kata"))
                    .build(), 30).status());
        } finally {
            if (ours) {
                // the engine this test started: stopped by its PID (its data stays for the next run)
                ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip())).ifPresent(ProcessHandle::destroy);
            }
        }
    }

    @Test
    void shouldAskForGpusOnlyOnTheNodeThatDeclaresThem() {
        DockyardApi.Answer local = API.provision(request("gpu-local", Json.createObjectBuilder().add("gpus", 1))
                .add("node", "local").build(), 30);
        assertEquals(400, local.status(), local.body());
        assertEquals("local", local.json().getString("node"));
        assertTrue(local.json().getString("detail").contains("backend node 'local' has no GPUs"), local.body());
        DockyardApi.Answer tooMany = API.provision(request("gpu-many", Json.createObjectBuilder().add("gpus", 3))
                .add("node", "node2").build(), 30);
        assertEquals(400, tooMany.status(), tooMany.body());
        assertTrue(tooMany.json().getString("detail").contains("has 2 GPUs"), tooMany.body());

        JsonObjectBuilder body = request("gpu", Json.createObjectBuilder().add("gpus",
                Json.createArrayBuilder().add("0").add("1"))).add("node", "node2");
        JsonObject built = body.build();
        String conversation = built.getString("conversationId");
        try (CreatedContainerWatch watch = CreatedContainerWatch.on(Path.of(DockerCli.NODE2.substring("unix://".length())),
                "dev.dockyard.conversation-id=" + conversation)) {
            DockyardApi.Answer answer = API.provision(built, 120);
            JsonObject inspected = watch.awaitInspection(Duration.ofSeconds(60));
            JsonArray requests = inspected.getJsonObject("HostConfig").getJsonArray("DeviceRequests");
            assertEquals(1, requests.size(), inspected.getJsonObject("HostConfig").toString());
            JsonObject request = requests.getJsonObject(0);
            assertEquals(List.of("0", "1"), request.getJsonArray("DeviceIDs").getValuesAs(
                    JsonString::getString));
            assertEquals("[[\"gpu\"]]", request.getJsonArray("Capabilities").toString());
            // no GPU here: the engine cannot start it, which ends the runtime cleanly, leaving nothing
            String id = answer.json().getString("id");
            assertEquals("ERROR", answer.json().getString("status"), answer.body());
            assertTrue(answer.json().getString("statusMessage").contains("could not start"), answer.body());
            assertEquals(List.of(), DockerCli.ok("-H", DockerCli.NODE2, "ps", "-aq", "--filter",
                    "label=dev.dockyard.runtime-id=" + id).lines().toList());
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldAttachOnlyTheExtraNetworksAnAdminAllows() {
        DockerCli.run("network", "create", EXTRA_NETWORK);
        String id = null;
        try {
            id = ready(request("net", Json.createObjectBuilder().add("networks",
                    Json.createArrayBuilder().add(EXTRA_NETWORK))));
            assertTrue(DockerCli.inspect("dockyard-" + id, "{{range $name, $n := .NetworkSettings.Networks}}{{$name}} "
                    + "{{end}}").contains(EXTRA_NETWORK));
            assertEquals("hi", run(id, "echo hi").getString("content").strip());
            for (String never : List.of("host", "container:dockyard-" + id, "none")) {
                DockyardApi.Answer refused = API.provision(request("never", Json.createObjectBuilder()
                        .add("networks", Json.createArrayBuilder().add(never))).build(), 30);
                assertEquals(400, refused.status(), never + ": " + refused.body());
                assertTrue(refused.json().getString("detail").contains("is never allowed"), refused.body());
            }
            DockyardApi.Answer notAllowed = API.provision(request("bridge", Json.createObjectBuilder()
                    .add("networks", Json.createArrayBuilder().add("bridge"))).build(), 30);
            assertEquals(400, notAllowed.status(), notAllowed.body());
            assertTrue(notAllowed.json().getString("detail").contains("not a network an admin allows"));
        } finally {
            if (id != null) {
                API.delete("runtimes/" + id);
            }
            DockerCli.run("network", "rm", EXTRA_NETWORK);
        }
    }
}
