package dev.dockyard.executor.envd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.envd.ConnectClient.Envelope;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** envd's {@code process.Process} over a real executor and HTTP server: real processes, real pipes and terminals. */
class EnvdProcessTest extends EnvdServerTests {

    private static String bash(String command) {
        return "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-c\"," + quote(command) + "]},\"stdin\":false}";
    }

    private static String quote(String text) {
        return Json.createValue(text).toString();
    }

    /** The concatenated output of {@code kind} (stdout, stderr, pty) in the envelopes. */
    private static String output(List<Envelope> envelopes, String kind) {
        return envelopes.stream().filter(e -> !e.endStream())
                .map(e -> e.message().getJsonObject("event"))
                .filter(event -> event.containsKey("data") && event.getJsonObject("data").containsKey(kind))
                .map(event -> new String(Base64.getDecoder().decode(event.getJsonObject("data").getString(kind)),
                        StandardCharsets.UTF_8))
                .collect(Collectors.joining());
    }

    private static JsonObject end(List<Envelope> envelopes) {
        return envelopes.get(envelopes.size() - 2).message().getJsonObject("event").getJsonObject("end");
    }

    private static long startPid(Envelope envelope) {
        return envelope.message().getJsonObject("event").getJsonObject("start").getJsonNumber("pid").longValue();
    }

    @Test
    void shouldRunEchoAsE2bsSdkDoes() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-l\",\"-c\",\"echo hi\"]},\"stdin\":false}",
                Map.of("Keepalive-Ping-Interval", "50", "Connect-Timeout-Ms", "60000"))) {
            Envelope first = stream.next();
            assertTrue(startPid(first) > 0, first.toString());
            List<Envelope> rest = stream.rest();
            assertEquals("aGkK", rest.get(0).message().getJsonObject("event").getJsonObject("data").getString("stdout"));
            JsonObject end = end(rest);
            assertEquals(0, end.getInt("exitCode"));
            assertTrue(end.getBoolean("exited"));
            assertEquals("exit status 0", end.getString("status"));
            assertFalse(end.containsKey("error"), "no error on exit 0");
            assertEquals(JsonValue.EMPTY_JSON_OBJECT, rest.get(rest.size() - 1).message(), "the end-stream is {}");
        }
    }

    @Test
    void shouldKeepStderrApartAndReportAnExitStatus() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("echo out; echo e >&2; exit 3"))) {
            List<Envelope> all = stream.rest();
            assertEquals("out\n", output(all, "stdout"));
            assertEquals("e\n", output(all, "stderr"));
            JsonObject end = end(all);
            assertEquals(3, end.getInt("exitCode"));
            assertEquals("exit status 3", end.getString("status"));
            assertEquals("exit status 3", end.getString("error"));
        }
    }

    @Test
    void shouldSendStartWhileTheProcessRunsAndReportSigkillAsGoDoes() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                bash("sleep 30 & echo $! > " + dir.resolve("child.pid") + "; wait"))) {
            long started = System.nanoTime();
            long pid = startPid(stream.next());
            assertTrue(System.nanoTime() - started < 10_000_000_000L, "start arrives before the process ends");
            assertTrue(client.list().stream().anyMatch(p -> p.getJsonNumber("pid").longValue() == pid));
            client.ok("process.Process/SendSignal", "{\"process\":{\"pid\":" + pid + "},\"signal\":\"SIGNAL_SIGKILL\"}");
            List<Envelope> rest = stream.rest();
            JsonObject end = end(rest);
            assertEquals(-1, end.getInt("exitCode"));
            assertFalse(end.getBoolean("exited"));
            assertEquals("signal: killed", end.getString("status"));
            assertEquals("signal: killed", end.getString("error"));
            long child = Long.parseLong(Files.readString(dir.resolve("child.pid")).strip());
            assertTrue(dies(child), "the whole group was killed");
            assertEquals("not_found", client.unary("process.Process/SendSignal",
                    "{\"process\":{\"pid\":" + pid + "},\"signal\":\"SIGNAL_SIGKILL\"}").body().getString("code"));
        }
    }

    /** Whether {@code pid} is gone or a zombie within 5 s (this container's init may never reap it). */
    private static boolean dies(long pid) throws IOException {
        Path stat = Path.of("/proc", String.valueOf(pid), "stat");
        for (int i = 0; i < 50; i++) {
            try {
                String text = Files.readString(stat);
                if (text.substring(text.lastIndexOf(')') + 2).startsWith("Z")) {
                    return true;
                }
            } catch (NoSuchFileException e) {
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @Test
    void shouldKeepAProcessWhoseClientWentAwayAndLetConnectReattach() throws IOException {
        long pid;
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                bash("read line < " + fifo() + "; echo got $line"))) {
            pid = startPid(stream.next());
        }
        // the client went away: the process still runs
        assertTrue(client.list().stream().anyMatch(p -> p.getJsonNumber("pid").longValue() == pid), "still listed");
        JsonObject info = client.list().stream().filter(p -> p.getJsonNumber("pid").longValue() == pid).findFirst()
                .orElseThrow();
        assertEquals("/bin/bash", info.getJsonObject("config").getString("cmd"));
        assertEquals(server.home.toString(), info.getJsonObject("config").getString("cwd"));
        try (ConnectClient.Stream stream = client.stream("process.Process/Connect", "{\"process\":{\"pid\":" + pid + "}}")) {
            assertEquals(pid, startPid(stream.next()));
            Files.writeString(dir.resolve("fifo"), "x\n");
            List<Envelope> rest = stream.rest();
            assertEquals("got x\n", output(rest, "stdout"));
            assertEquals(0, end(rest).getInt("exitCode"));
        }
        // an exited process replays start and end for a while
        try (ConnectClient.Stream stream = client.stream("process.Process/Connect", "{\"process\":{\"pid\":" + pid + "}}")) {
            assertEquals(pid, startPid(stream.next()));
            assertEquals("exit status 0", end(stream.rest()).getString("status"));
        }
        assertFalse(client.list().stream().anyMatch(p -> p.getJsonNumber("pid").longValue() == pid), "List shows live ones");
    }

    private static Path fifo() throws IOException {
        Path fifo = dir.resolve("fifo");
        try {
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
        return fifo;
    }

    @Test
    void shouldAnswerConnectToAnUnknownPidInTheEndStream() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Connect", "{\"process\":{\"pid\":999999999}}")) {
            Envelope only = stream.next();
            assertTrue(only.endStream());
            assertEquals("not_found", only.message().getJsonObject("error").getString("code"));
        }
    }

    @Test
    void shouldFeedStdinWhenAskedAndCloseIt() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"cat; sleep 1\"]},\"stdin\":true}")) {
            long pid = startPid(stream.next());
            client.ok("process.Process/SendInput", "{\"process\":{\"pid\":" + pid + "},\"input\":{\"stdin\":\""
                    + Base64.getEncoder().encodeToString("x\n".getBytes(StandardCharsets.UTF_8)) + "\"}}");
            client.ok("process.Process/CloseStdin", "{\"process\":{\"pid\":" + pid + "}}");
            client.ok("process.Process/CloseStdin", "{\"process\":{\"pid\":" + pid + "}}");
            List<Envelope> rest = stream.rest();
            assertEquals("x\n", output(rest, "stdout"));
            assertEquals(0, end(rest).getInt("exitCode"));
        }
    }

    @Test
    void shouldGiveDevNullAsStdinUnlessAskedAndRefuseInput() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("cat; sleep 5"))) {
            long pid = startPid(stream.next());
            ConnectClient.Answer refused = client.unary("process.Process/SendInput",
                    "{\"process\":{\"pid\":" + pid + "},\"input\":{\"stdin\":\"eA==\"}}");
            assertEquals(500, refused.status());
            assertEquals("internal", refused.body().getString("code"));
            assertEquals("stdin not enabled or closed", refused.body().getString("message"));
            client.ok("process.Process/SendSignal", "{\"process\":{\"pid\":" + pid + "},\"signal\":\"SIGNAL_SIGTERM\"}");
            JsonObject end = end(stream.rest());
            assertEquals("signal: terminated", end.getString("status"));
        }
    }

    @Test
    void shouldKillAProcessWhenConnectTimeoutElapses() throws IOException {
        long started = System.nanoTime();
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("sleep 20"),
                Map.of("Connect-Timeout-Ms", "500"))) {
            stream.next();
            JsonObject end = end(stream.rest());
            assertEquals("signal: killed", end.getString("status"));
            assertTrue(System.nanoTime() - started < 10_000_000_000L, "killed at the timeout, not at the end of sleep");
        }
    }

    @Test
    void shouldSendAMissingCwdInsteadOfStart() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                "{\"process\":{\"cmd\":\"/bin/true\",\"cwd\":\"/no/such/dir\"}}")) {
            Envelope only = stream.next();
            assertTrue(only.endStream(), "no start: " + only);
            assertEquals("invalid_argument", only.message().getJsonObject("error").getString("code"));
            assertEquals("cwd '/no/such/dir' does not exist", only.message().getJsonObject("error").getString("message"));
        }
    }

    @Test
    void shouldLayerTheEnvironmentAndResolveRelativeCwdFromHome() throws IOException {
        server.executor.configure(Map.of("FROM_CREATE", "c", "BOTH", "create"), null);
        Files.createDirectories(server.home.resolve("sub"));
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"echo $FROM_CREATE $BOTH $HOME $USER $(pwd)\"],"
                        + "\"envs\":{\"BOTH\":\"command\"},\"cwd\":\"sub\"}}")) {
            List<Envelope> all = stream.rest();
            assertEquals("c command " + server.home + " " + System.getProperty("user.name") + " "
                    + server.home.resolve("sub") + "\n", output(all, "stdout"));
        } finally {
            server.executor.configure(Map.of(), null);
        }
    }

    @Test
    void shouldRefuseAnUnknownUserAsEnvdDoes() throws IOException {
        String nobody = "Basic " + Base64.getEncoder().encodeToString("nobody:".getBytes(StandardCharsets.UTF_8));
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("id"),
                Map.of("Authorization", nobody))) {
            Envelope only = stream.next();
            assertTrue(only.endStream());
            assertEquals("unauthenticated", only.message().getJsonObject("error").getString("code"));
            assertEquals("invalid username: 'nobody'", only.message().getJsonObject("error").getString("message"));
        }
        String user = "Basic " + Base64.getEncoder().encodeToString("user:".getBytes(StandardCharsets.UTF_8));
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("echo ok"),
                Map.of("Authorization", user))) {
            assertEquals("ok\n", output(stream.rest(), "stdout"), "E2B's 'user' is the executor's user");
        }
    }

    @Test
    void shouldRunOnATerminalThatResizes() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start",
                "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"--norc\",\"--noprofile\",\"-i\"],"
                        + "\"envs\":{\"TERM\":\"xterm-256color\",\"PS1\":\"$ \"}},\"pty\":{\"size\":{\"cols\":80,\"rows\":24}}}")) {
            long pid = startPid(stream.next());
            type(pid, "echo T=$TERM; stty size\n");
            String seen = readPtyUntil(stream, "24 80");
            assertTrue(seen.contains("T=xterm-256color"), seen);
            client.ok("process.Process/Update", "{\"process\":{\"pid\":" + pid + "},\"pty\":{\"size\":{\"cols\":100,\"rows\":30}}}");
            type(pid, "stty size\n");
            readPtyUntil(stream, "30 100");
            type(pid, "exit 4\n");
            List<Envelope> rest = stream.rest();
            assertEquals(4, end(rest).getInt("exitCode"));
        }
    }

    private static void type(long pid, String text) throws IOException {
        client.ok("process.Process/SendInput", "{\"process\":{\"pid\":" + pid + "},\"input\":{\"pty\":\""
                + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)) + "\"}}");
    }

    /** The terminal's output until {@code expected} appears in it (each read bounded by the client's timeout). */
    private static String readPtyUntil(ConnectClient.Stream stream, String expected) throws IOException {
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains(expected)) {
            Envelope envelope = stream.next();
            assertFalse(envelope.endStream(), "ended before '" + expected + "' in: " + seen);
            JsonObject event = envelope.message().getJsonObject("event");
            if (event.containsKey("data")) {
                assertTrue(event.getJsonObject("data").containsKey("pty"), "terminal output is data.pty");
                seen.append(new String(Base64.getDecoder().decode(event.getJsonObject("data").getString("pty")),
                        StandardCharsets.UTF_8));
            }
        }
        return seen.toString();
    }

    @Test
    void shouldSendKeepalivesOnASilentStream() throws IOException {
        try (ConnectClient.Stream stream = client.stream("process.Process/Start", bash("sleep 2.5"),
                Map.of("Keepalive-Ping-Interval", "1"))) {
            stream.next();
            Envelope next = stream.next();
            assertTrue(next.message().getJsonObject("event").containsKey("keepalive"), next.toString());
            assertEquals(0, end(stream.rest()).getInt("exitCode"));
        }
    }

    @Test
    void shouldAnswerUnaryErrorsWithConnectsJsonAndStatus() throws IOException {
        ConnectClient.Answer answer = client.unary("process.Process/SendSignal",
                "{\"process\":{\"pid\":999999999},\"signal\":\"SIGNAL_SIGKILL\"}");
        assertEquals(404, answer.status());
        assertTrue(answer.contentType().startsWith("application/json"));
        assertEquals("not_found", answer.body().getString("code"));
        ConnectClient.Answer bad = client.unary("process.Process/List", "not json");
        assertEquals(400, bad.status());
        assertEquals("invalid_argument", bad.body().getString("code"));
    }
}
