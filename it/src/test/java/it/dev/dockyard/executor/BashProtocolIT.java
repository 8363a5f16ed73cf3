package it.dev.dockyard.executor;

import static it.dev.dockyard.support.Sandbox.exitCode;
import static it.dev.dockyard.support.Sandbox.metadata;
import static it.dev.dockyard.support.Sandbox.suffix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.bench.Bench.KeepAlive;
import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PROTOCOL.md's bash semantics, row by row, against the executor in a real sandbox container. */
class BashProtocolIT extends SandboxTest {


    @AfterEach
    void backToIdle() {
        sandbox.reset();
    }

    @Test
    void shouldReturnOutputExitCodeAndSuccess() {
        JsonObject obs = sandbox.run("echo hello");
        assertEquals("run", obs.getString("observation"));
        assertEquals("hello", obs.getString("content"));
        assertEquals(0, exitCode(obs));
        assertTrue(obs.getBoolean("success"));
        assertEquals("Command `echo hello` executed with exit code 0.", obs.getString("message"));
        assertEquals("\n[The command completed with exit code 0.]", suffix(obs));
    }

    @Test
    void shouldReportNonZeroExitCodeAsFailure() {
        JsonObject obs = sandbox.run("(exit 3)");
        assertEquals(3, exitCode(obs));
        assertFalse(obs.getBoolean("success"));
    }

    @Test
    void shouldPersistWorkingDirectoryAcrossCommands() {
        sandbox.run("mkdir -p /tmp/deep/er && cd /tmp/deep/er");
        JsonObject obs = sandbox.run("pwd");
        assertEquals("/tmp/deep/er", obs.getString("content"));
        assertEquals("/tmp/deep/er", metadata(obs).getString("working_dir"));
    }

    @Test
    void shouldPersistExportedVariablesAndFunctions() {
        sandbox.run("export GREETING=bonjour; shout() { echo \"$1!\"; }");
        assertEquals("bonjour", sandbox.run("echo $GREETING").getString("content"));
        assertEquals("hey!", sandbox.run("shout hey").getString("content"));
    }

    @Test
    void shouldReportUserHostAndBackgroundPid() {
        JsonObject obs = sandbox.run("sleep 30 &");
        JsonObject meta = metadata(obs);
        assertEquals("dockyard", meta.getString("username"));
        assertFalse(meta.getString("hostname").isBlank());
        int pid = meta.getInt("pid");
        assertTrue(pid > 1, "pid of the background job: " + pid);
        // the job's process is bash until it has exec'd sleep: asked until it is (2 s at most), as a
        // loaded machine may ask in between (measured: "bash" in a fresh-clone run)
        assertEquals("sleep", sandbox.run("for i in $(seq 20); do c=$(ps -o comm= -p " + pid + "); "
                + "[ \"$c\" = sleep ] && break; sleep 0.1; done; echo \"$c\"").getString("content"));
        // waited for here: bash reports a job's end before its next prompt, and under gVisor the
        // signal may land after this command's, which put "[1]+ Terminated" in the next test's output
        sandbox.run("kill " + pid + "; wait " + pid + " 2>/dev/null; true");
    }

    @Test
    void shouldNotHangOnBackgroundProcess() {
        long start = System.nanoTime();
        JsonObject obs = sandbox.run("sleep 60 > /dev/null 2>&1 &");
        assertEquals(0, exitCode(obs));
        assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
        assertEquals("next", sandbox.run("echo next").getString("content"));
        sandbox.run("kill %1");
    }

    @Test
    void shouldReapOrphanedZombies() {
        // the orphan's parent exits at once; only tini (PID 1's subreaper) can reap it
        sandbox.run("bash -c 'sleep 0.2 & exit 0'; sleep 1");
        assertEquals("0", sandbox.run("ps -eo stat= | grep -c '^Z' || true").getString("content"));
    }

    @Test
    void shouldReturnAtHardTimeoutAndKeepTheProcessRunning() {
        JsonObject obs = sandbox.run("echo started; sleep 600", 2, true);
        assertEquals("started", obs.getString("content"));
        assertEquals(-1, exitCode(obs));
        assertTrue(suffix(obs).startsWith("\n[The command timed out after 2.0 seconds."), suffix(obs));
        // still running: the shell shows it as the foreground job's process
        JsonObject ps = sandbox.execute(Sandbox.action("run", Sandbox.args().add("command", "ps -eo args")
                .add("is_static", true)));
        assertTrue(ps.getString("content").contains("sleep 600"), ps.getString("content"));
    }

    @Test
    void shouldReturnAtHardTimeoutForSleepInfinityAndWorkAfterInterrupt() {
        JsonObject obs = sandbox.run("sleep infinity", 3, true);
        assertTrue(suffix(obs).contains("timed out after 3.0 seconds"), suffix(obs));
        JsonObject interrupted = sandbox.input("C-c");
        assertEquals(130, exitCode(interrupted));
        assertEquals("works", sandbox.run("echo works").getString("content"));
    }

    @Test
    void shouldReturnPartialOutputAfterSoftTimeout() {
        long start = System.nanoTime();
        JsonObject obs = sandbox.run("echo before; read -p 'name? ' answer; echo \"hi $answer\"");
        long seconds = (System.nanoTime() - start) / 1_000_000_000;
        assertTrue(seconds >= 9 && seconds < 30, "returned after " + seconds + " s");
        assertEquals("before\nname?", obs.getString("content"));
        assertEquals(-1, exitCode(obs));
        assertTrue(suffix(obs).startsWith("\n[The command has no new output after 10 seconds."), suffix(obs));
        JsonObject answered = sandbox.input("dockyard");
        assertEquals("hi dockyard", answered.getString("content"));
        assertEquals(0, exitCode(answered));
        // OpenHands resets the prefix when the command completes (its test_interactive_command)
        assertEquals("", metadata(answered).getString("prefix"));
    }

    @Test
    void shouldReadMoreOutputWithEmptyCommand() {
        JsonObject first = sandbox.run("for i in 1 2 3; do echo tick$i; sleep 1; done", 1.5, true);
        assertTrue(first.getString("content").startsWith("tick1"), first.getString("content"));
        JsonObject rest = sandbox.run("", 10, true);
        assertTrue(rest.getString("content").endsWith("tick3"), rest.getString("content"));
        assertFalse(rest.getString("content").contains("tick1"), "already seen output is not repeated");
        assertEquals(0, exitCode(rest));
    }

    @Test
    void shouldAnswerEmptyCommandWithNothingRunning() {
        JsonObject obs = sandbox.run("");
        assertEquals("ERROR: No previous running command to retrieve logs from.", obs.getString("content"));
        assertEquals(-1, exitCode(obs));
    }

    @Test
    void shouldRefuseNewCommandWhileOneRuns() {
        sandbox.run("sleep 30", 1, true);
        JsonObject refused = sandbox.run("echo should-not-run");
        assertTrue(suffix(refused).contains("[Your command \"echo should-not-run\" is NOT executed."), suffix(refused));
        assertFalse(refused.getString("content").contains("should-not-run"));
        sandbox.input("C-c");
    }

    @Test
    void shouldInterruptWithCtrlC() {
        sandbox.run("sleep 100", 1, true);
        JsonObject obs = sandbox.input("C-c");
        assertEquals(130, exitCode(obs));
        assertTrue(suffix(obs).contains("CTRL+C was sent."), suffix(obs));
    }

    @Test
    void shouldSuspendWithCtrlZ() {
        sandbox.run("sleep 100", 1, true);
        JsonObject obs = sandbox.input("C-z");
        assertEquals(148, exitCode(obs));
        assertTrue(obs.getString("content").contains("Stopped"), obs.getString("content"));
        assertTrue(sandbox.run("jobs").getString("content").contains("sleep 100"));
        sandbox.run("kill -9 %1");
    }

    @Test
    void shouldEndInputWithCtrlD() {
        sandbox.run("cat > /tmp/typed.txt", 1, true);
        // cat keeps reading: the typed line comes back at this call's own short hard timeout
        sandbox.execute(Json.createObjectBuilder().add("action", "run").add("timeout", 1)
                .add("args", Sandbox.args().add("command", "typed line").add("is_input", true).add("blocking", true))
                .build());
        JsonObject obs = sandbox.input("C-d");
        assertEquals(0, exitCode(obs));
        assertEquals("typed line", sandbox.run("cat /tmp/typed.txt").getString("content"));
    }

    @Test
    void shouldRefuseInputWithNothingRunning() {
        JsonObject obs = sandbox.input("hello");
        assertEquals("ERROR: No previous running command to interact with.", obs.getString("content"));
    }

    @Test
    void shouldTruncateMiddleOfHugeOutput() {
        JsonObject obs = sandbox.run("seq 1 100000");
        String content = obs.getString("content");
        assertTrue(content.startsWith("1\n2\n3\n"));
        assertTrue(content.endsWith("99999\n100000"));
        assertTrue(content.contains("[... Observation truncated due to length ...]"));
        assertTrue(content.length() <= 30_000 + 60, "length " + content.length());
    }

    @Test
    void shouldSurviveTwoHundredMegabytesOfOutputWithBoundedHeap() {
        JsonObject obs = sandbox.run("yes | head -c 200000000", hugeOutputSeconds(), true);
        assertEquals(0, exitCode(obs));
        assertTrue(obs.getString("content").length() <= 30_000 + 60);
        assertTrue(obs.getString("content").contains("[... Observation truncated due to length ...]"));
        // 200 MB of output is 400 MB as Java chars: only a bounded buffer survives in this heap
        JsonObject info = Sandbox.json(sandbox.send(sandbox.request("server_info").GET()).body());
        long heapMax = info.getJsonObject("resources").getJsonObject("jvm").getJsonNumber("heap_max").longValue();
        assertTrue(heapMax <= 300L * 1024 * 1024, "the executor's heap is capped: " + heapMax);
        assertEquals("still fine", sandbox.run("echo still fine").getString("content"));
    }

    /** How long 200 MB may take to pass through the sandbox's terminal (runc: 4-8 s). */
    double hugeOutputSeconds() {
        return 120;
    }

    @Test
    void shouldRunSeveralLinesAsOneUnit() {
        JsonObject obs = sandbox.run("cd /tmp\necho one\necho two\n(exit 4)");
        assertEquals("one\ntwo", obs.getString("content"));
        assertEquals(4, exitCode(obs));
        assertEquals("/tmp", metadata(obs).getString("working_dir"));
        JsonObject heredoc = sandbox.run("cat <<'EOF'\nline $HOME\nEOF");
        assertEquals("line $HOME", heredoc.getString("content"));
    }

    @Test
    void shouldRunAHundredThousandByteOneLineCommandExactly() throws Exception {
        String text = "0123456789abcdefghijklmnopqrstuvwxyz-+=.,:ABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(2000)
                .substring(0, 100_000);
        String command = "printf %s '" + text + "' | sha256sum";
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8))) + "  -";
        String body = Json.createObjectBuilder().add("action", Sandbox.action("run", Sandbox.args().add("command",
                command))).build().toString();
        long[] micros = new long[5];
        try (KeepAlive socket = new KeepAlive(sandbox.executor)) {
            for (int i = 0; i < micros.length; i++) {
                long start = System.nanoTime();
                JsonObject obs = Sandbox.json(socket.post(sandbox.executor.resolve("execute_action").getPath(), "X-Session-API-Key", sandbox.key, body));
                micros[i] = (System.nanoTime() - start) / 1_000;
                assertEquals(expected, obs.getString("content"));
                assertEquals(0, exitCode(obs));
                assertEquals(command, obs.getJsonObject("extras").getString("command"), "named as sent");
            }
        }
        Arrays.sort(micros);
        System.out.printf("100,000-byte one-line command, one kept-alive socket: median %.2f ms, max %.2f ms%n",
                micros[2] / 1000.0, micros[4] / 1000.0);
        // find, not ls: gVisor (Debian's runsc) refuses the statx flags coreutils' ls passes
        assertEquals("0", sandbox.run("find /opt/dockyard/run -maxdepth 1 -name 'command-*' | wc -l")
                .getString("content").strip(), "the command's file is gone once it ran");
    }

    @Test
    void shouldRunTheWholeOfALineLongerThanTheTerminalLimit() {
        JsonObject obs = sandbox.run("echo " + "x".repeat(4100) + " | wc -c");
        assertEquals("4101", obs.getString("content"));
        assertEquals(0, exitCode(obs));
    }

    @Test
    void shouldAnswerShortCommandsAsFastAsBefore() throws Exception {
        String body = Json.createObjectBuilder().add("action", Sandbox.action("run", Sandbox.args().add("command",
                "echo hi"))).build().toString();
        long[] micros = new long[300];
        try (KeepAlive socket = new KeepAlive(sandbox.executor)) {
            for (int i = 0; i < 50; i++) {
                socket.post(sandbox.executor.resolve("execute_action").getPath(), "X-Session-API-Key", sandbox.key, body);
            }
            for (int i = 0; i < micros.length; i++) {
                long start = System.nanoTime();
                String answer = socket.post(sandbox.executor.resolve("execute_action").getPath(), "X-Session-API-Key", sandbox.key, body);
                micros[i] = (System.nanoTime() - start) / 1_000;
                assertEquals("hi", Sandbox.json(answer).getString("content"));
            }
        }
        Arrays.sort(micros);
        System.out.printf("echo straight to the executor, one kept-alive socket: p50 %.2f ms, p90 %.2f ms%n",
                micros[150] / 1000.0, micros[270] / 1000.0);
        assertTrue(micros[150] < SHORT_COMMAND_MEDIAN_BOUND_MICROS, "median " + micros[150] + " us");
    }

    /**
     * The median an {@code echo} may take on one kept-alive socket. Speed is the benchmark's to judge
     * (docker/bench.sh, docs/benchmarks.md's table: ~1-2 ms straight to the executor, 4-5 ms under gVisor);
     * this bound only catches a change of kind, such as a shell read by polling again (OpenHands'
     * server: ~630 ms), and holds on a loaded machine under gVisor or behind two proxies (21 ms seen
     * under gVisor at load 12).
     */
    private static final long SHORT_COMMAND_MEDIAN_BOUND_MICROS = 100_000;

    @Test
    void shouldDeliverAnInputLineLongerThanTheTerminalLimit() {
        JsonObject waiting = sandbox.run("read -r line; echo ${#line} ${line: -3}", 2, true);
        assertEquals(-1, exitCode(waiting));
        JsonObject answered = sandbox.input("w".repeat(9997) + "end");
        assertEquals("10000 end", answered.getString("content"));
        assertEquals(0, exitCode(answered));
    }

    @Test
    void shouldBringConfigurationPushedDuringACommandIntoTheShell() {
        JsonObject running = sandbox.run("sleep 600", 2, false);
        assertEquals(-1, exitCode(running), "still running when its call returned");
        HttpResponse<String> configured = sandbox.configure(Json.createObjectBuilder()
                .add("env", Json.createObjectBuilder().add("DY_REFRESHED", "fresh-value")).build());
        assertEquals(204, configured.statusCode(), configured.body());
        assertEquals("pending", configured.headers().firstValue("Dockyard-Shell-Configuration").orElse(""));
        assertEquals(130, exitCode(sandbox.input("C-c")));
        JsonObject echoed = sandbox.run("echo $DY_REFRESHED");
        assertEquals("fresh-value", echoed.getString("content"), "the new value reached the shell, unseen");
        HttpResponse<String> idle = sandbox.configure(Json.createObjectBuilder()
                .add("env", Json.createObjectBuilder().add("DY_REFRESHED", "second")).build());
        assertEquals("sourced", idle.headers().firstValue("Dockyard-Shell-Configuration").orElse(""));
        assertEquals("second", sandbox.run("echo $DY_REFRESHED").getString("content"));
    }

    @Test
    void shouldRunStaticCommandInAFreshProcessWithCwd() {
        sandbox.run("cd /tmp && export ONLY_IN_SHELL=1");
        JsonObject obs = sandbox.execute(Sandbox.action("run", Sandbox.args()
                .add("command", "pwd; echo ${ONLY_IN_SHELL:-unset}").add("is_static", true).add("cwd", "/etc")));
        assertEquals("/etc\nunset", obs.getString("content"));
        assertEquals(0, exitCode(obs));
        assertEquals("/tmp", sandbox.run("pwd").getString("content"), "the persistent shell is untouched");
    }

    @Test
    void shouldServeOneActionAtATime() throws Exception {
        CompletableFuture<JsonObject> slow = CompletableFuture.supplyAsync(
                () -> sandbox.run("sleep 2; echo slow"));
        Sandbox.sleep(300);
        long start = System.nanoTime();
        JsonObject fast = sandbox.run("echo fast");
        long waited = (System.nanoTime() - start) / 1_000_000;
        assertEquals("slow", slow.get().getString("content"));
        assertEquals("fast", fast.getString("content"));
        assertTrue(waited >= 1_000, "the second action waited its turn: " + waited + " ms");
    }

    @Test
    void shouldReplayTheObservationForARepeatedRequestId() {
        String id = UUID.randomUUID().toString();
        JsonObject action = Sandbox.action("run", Sandbox.args().add("command", "echo x >> /tmp/once.txt; wc -l < /tmp/once.txt"));
        HttpResponse<String> first = sandbox.executeRaw(action, id);
        HttpResponse<String> again = sandbox.executeRaw(action, id);
        assertEquals(200, again.statusCode());
        assertEquals(first.body(), again.body());
        assertEquals("1", sandbox.run("wc -l < /tmp/once.txt").getString("content"));
        HttpResponse<String> other = sandbox.executeRaw(Sandbox.action("run", Sandbox.args().add("command", "echo y")), id);
        assertEquals(409, other.statusCode(), other.body());
    }

    @Test
    void shouldRefuseWrongOrMissingSessionKey() {
        HttpResponse<String> noKey = sandbox.send(HttpRequest.newBuilder(sandbox.executor.resolve("ready")));
        assertEquals(403, noKey.statusCode());
        assertEquals("{\"detail\":\"Invalid API Key\"}", noKey.body());
        HttpResponse<String> wrong = sandbox.send(HttpRequest.newBuilder(
                sandbox.executor.resolve("execute_action")).header("X-Session-API-Key", "nope")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals(403, wrong.statusCode());
    }

    @Test
    void shouldAnswerAliveAndServerInfoWithoutKey() {
        HttpResponse<String> alive = sandbox.send(HttpRequest.newBuilder(sandbox.executor.resolve("alive")));
        assertEquals("{\"status\":\"ok\"}", alive.body());
        JsonObject info = Sandbox.json(sandbox.send(HttpRequest.newBuilder(
                sandbox.executor.resolve("server_info"))).body());
        assertTrue(info.getJsonNumber("uptime").doubleValue() > 0);
        assertTrue(info.containsKey("idle_time"));
        assertTrue(info.getJsonObject("resources").containsKey("memory"));
    }

    @Test
    void shouldAnswer400ForUnknownActionType() {
        HttpResponse<String> answer = sandbox.executeRaw(Json.createObjectBuilder().add("action", "teleport")
                .add("args", Json.createObjectBuilder()).build(), null);
        assertEquals(400, answer.statusCode());
        assertTrue(answer.body().contains("Unknown action type: teleport"), answer.body());
    }
}
