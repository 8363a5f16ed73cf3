package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The walking skeleton end to end: REST → control plane on Liberty → Docker → sandbox image →
 * executor on Liberty → persistent bash and files, and back.
 */
class RuntimeLifecycleIT {

    private static final DockyardApi API = new DockyardApi();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> CREATED = new ArrayList<>();

    private static String conversation(String name) {
        return "it-" + RUN + "-" + name;
    }

    private static JsonObject provisionReady(String conversationId) {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", conversationId).build(), 120);
        JsonObject runtime = answer.json();
        CREATED.add(runtime.getString("id"));
        assertEquals(201, answer.status(), "expected READY within the wait: " + answer.body());
        assertEquals("READY", runtime.getString("status"));
        return runtime;
    }

    @AfterAll
    static void nothingOfThisRunIsLeft() {
        for (String id : CREATED) {
            API.delete("runtimes/" + id);
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id));
        }
        // every container this run's conversations ever had is gone, whatever the bookkeeping above missed
        List<String> leftovers = DockerCli.ok("ps", "-a", "--filter", "label=dev.dockyard.managed=true", "--format",
                "{{.Label \"dev.dockyard.conversation-id\"}}").lines()
                .filter(c -> c.startsWith("it-" + RUN + "-")).toList();
        assertEquals(List.of(), leftovers);
    }

    @Test
    void shouldProvisionRunCommandsAndFilesThenDeleteLeavingNoContainer() {
        JsonObject runtime = provisionReady(conversation("main"));
        String id = runtime.getString("id");
        assertEquals(conversation("main"), runtime.getString("conversationId"));
        assertEquals("docker", runtime.getString("backend"));
        assertNotNull(runtime.getString("readyAt"));

        JsonObject hello = API.act(id, DockyardApi.run("echo hello"));
        assertEquals("run", hello.getString("observation"));
        assertEquals("hello", hello.getString("content"));
        assertEquals(0, hello.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"));
        assertTrue(hello.getBoolean("success"));

        API.act(id, DockyardApi.run("cd /tmp"));
        JsonObject pwd = API.act(id, DockyardApi.run("pwd"));
        assertEquals("/tmp", pwd.getString("content"));
        assertEquals("/tmp", pwd.getJsonObject("extras").getJsonObject("metadata").getString("working_dir"));

        JsonObject write = API.act(id, Json.createObjectBuilder().add("action", "write")
                .add("args", Json.createObjectBuilder().add("path", "/workspace/notes/hello.txt")
                        .add("content", "first line\nsecond line")).build());
        assertEquals("write", write.getString("observation"), write.toString());
        JsonObject read = API.act(id, Json.createObjectBuilder().add("action", "read")
                .add("args", Json.createObjectBuilder().add("path", "/workspace/notes/hello.txt")).build());
        assertEquals("read", read.getString("observation"), read.toString());
        assertEquals("first line\nsecond line\n", read.getString("content"));

        // the file is really in the sandbox, owned by the sandbox user
        JsonObject owner = API.act(id, DockyardApi.run("stat -c '%u %U' /workspace/notes/hello.txt"));
        assertEquals("1000 dockyard", owner.getString("content"));

        assertEquals(1, DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id).size());
        assertEquals(204, API.delete("runtimes/" + id).status());
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id));
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.conversation-id=" + conversation("main")));
        assertEquals("STOPPED", API.get("runtimes/" + id).json().getString("status"));
    }

    @Test
    void shouldHardenTheContainerAndKeepTheSessionKeyOutOfInspect() {
        String id = provisionReady(conversation("hardened")).getString("id");
        String container = "dockyard-" + id;
        assertEquals("true", DockerCli.inspect(container, "{{.HostConfig.Init}}"));
        assertEquals("[ALL]", DockerCli.inspect(container, "{{.HostConfig.CapDrop}}"));
        assertEquals("[no-new-privileges]", DockerCli.inspect(container, "{{.HostConfig.SecurityOpt}}"));
        assertEquals("1000", DockerCli.inspect(container, "{{.Config.User}}"));
        assertTrue(Long.parseLong(DockerCli.inspect(container, "{{.HostConfig.PidsLimit}}")) > 0);
        assertEquals(String.valueOf(1024L * 1024 * 1024), DockerCli.inspect(container, "{{.HostConfig.Memory}}"));
        assertEquals("1000000000", DockerCli.inspect(container, "{{.HostConfig.NanoCpus}}"));
        // published on a loopback address of its own: no other sandbox ever listens where it did
        String address = DockerCli.inspect(container, "{{(index (index .NetworkSettings.Ports \"8000/tcp\") 0).HostIp}}");
        assertTrue(address.matches("127\\.([1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-4])\\.[0-9]+\\.[0-9]+"), address);
        assertEquals("true", DockerCli.inspect(container, "{{index .Config.Labels \"dev.dockyard.managed\"}}"));
        assertEquals(id, DockerCli.inspect(container, "{{index .Config.Labels \"dev.dockyard.runtime-id\"}}"));

        String env = DockerCli.inspect(container, "{{json .Config.Env}}");
        assertFalse(env.contains("SESSION_API_KEY="), env);
        // the executor consumed and deleted its key file (only the pushed configuration, the user's
        // own, remains); the agent's shell has no key either
        JsonObject look = API.act(id, DockyardApi.run(
                "ls -A /opt/dockyard/run; stat -c %a /opt/dockyard/run/env.sh; env | grep -c SESSION_API_KEY; echo done"));
        assertEquals("env.sh\n600\n0\ndone", look.getString("content"));
        API.delete("runtimes/" + id);
    }

    @Test
    void shouldRefuseAtOnceAndLeaveNothingWhenTheImageDoesNotExist() {
        String conversationId = conversation("bad-image");
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", conversationId)
                .add("sandbox", Json.createObjectBuilder().add("image", "dockyard/no-such-image:missing")).build(), 60);
        // the engine never pulls: refused at admission (issue 26, 11a), not 202 then ERROR
        assertEquals(404, answer.status(), answer.body());
        assertTrue(answer.contentType().startsWith("application/problem+json"), answer.body());
        String message = answer.json().getString("detail");
        assertTrue(message.contains("not found on node 'local'"), message);
        assertTrue(message.contains("dockyard/no-such-image:missing"), message);
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.conversation-id=" + conversationId));
        // nothing was recorded: the conversation is free
        DockyardApi.Answer again = API.provision(Json.createObjectBuilder().add("conversationId", conversationId)
                .build(), 120);
        CREATED.add(again.json().getString("id"));
        assertEquals(201, again.status(), again.body());
    }

    @Test
    void shouldReportErrorWithItsLogWhenTheSandboxDiesDuringStart() {
        // a sandbox image whose executor crashes at once: readiness must fail fast and say why
        // the build context is a directory of its own: the whole temp directory can hold gigabytes
        Path context = writeDockerfile("FROM dockyard/sandbox:latest\n"
                + "ENTRYPOINT [\"/bin/sh\", \"-c\", \"echo executor exploded >&2; exit 3\"]\n");
        DockerCli.Result build = DockerCli.run("build", "-q", "-t", "dockyard/it-crashing-sandbox:latest",
                context.toString());
        assertEquals(0, build.exitCode(), build.output());
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", conversation("dies"))
                .add("sandbox", Json.createObjectBuilder().add("image", "dockyard/it-crashing-sandbox:latest")
                        .add("timeoutSeconds", 60)).build(), 60);
        JsonObject runtime = answer.json();
        String id = runtime.getString("id");
        CREATED.add(id);
        assertEquals("ERROR", runtime.getString("status"), answer.body());
        String message = runtime.getString("statusMessage");
        // it dies either before Docker reports it running (step start) or while the control plane waits
        assertTrue(message.startsWith("Provisioning failed at step 'start'")
                || message.startsWith("Provisioning failed at step 'readiness'"), message);
        assertTrue(message.contains("exited with code 3"), message);
        assertTrue(message.contains("executor exploded"), message);
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id));
    }

    /** A new directory holding only a Dockerfile of {@code text}: a build context of a few bytes. */
    private static Path writeDockerfile(String text) {
        try {
            Path dir = Files.createTempDirectory("dockyard-it-context");
            // deleted in reverse order of registration: the file, then its directory
            dir.toFile().deleteOnExit();
            Path file = dir.resolve("Dockerfile");
            Files.writeString(file, text);
            file.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldAnswerConflictWithTheExistingRuntimeForASecondProvision() {
        String conversationId = conversation("twice");
        String id = provisionReady(conversationId).getString("id");
        DockyardApi.Answer second = API.post("runtimes", Json.createObjectBuilder()
                .add("conversationId", conversationId).build());
        assertEquals(409, second.status());
        assertTrue(second.contentType().startsWith("application/problem+json"), second.contentType());
        assertEquals(id, second.json().getJsonObject("runtime").getString("id"));
        assertEquals(1, DockerCli.containersLabelled("dev.dockyard.conversation-id=" + conversationId).size());
        API.delete("runtimes/" + id);
    }
}
