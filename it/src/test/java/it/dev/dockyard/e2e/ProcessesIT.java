package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The process API of {@code /api/v1} (a runtime's processes beside its persistent shell), through a
 * real control plane to a real sandbox's executor: a process's events as Server-Sent Events, stdout
 * and stderr apart, exit codes, stdin, attaching again after the client went away, signals, a
 * terminal that is resized, and the refusals (a missing cwd, an unknown pid, another user's runtime).
 */
class ProcessesIT {

    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final DockyardApi ADMIN = new DockyardApi();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static DockyardApi user;
    private static String runtime;

    /** One Server-Sent Event. */
    record Event(String name, JsonObject data) {
        String text() {
            return new String(Base64.getDecoder().decode(data.getString("data")), StandardCharsets.UTF_8);
        }
    }

    @BeforeAll
    static void provision() {
        user = ADMIN.newUser("it-processes", "user");
        DockyardApi.Answer answer = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-processes-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        runtime = answer.json().getString("id");
    }

    @AfterAll
    static void delete() {
        user.delete("runtimes/" + runtime);
    }

    @Test
    void shouldStreamAProcessFromStartToEndWithItsOutputsApart() throws Exception {
        List<Event> events = run("{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"echo out; echo err >&2; exit 3\"],"
                + "\"env\":{\"X\":\"1\"}}", Integer.MAX_VALUE);
        assertEquals("start", events.get(0).name());
        assertTrue(events.get(0).data().getInt("pid") > 0);
        assertEquals("out\n", joined(events, "stdout"));
        assertEquals("err\n", joined(events, "stderr"));
        Event end = events.get(events.size() - 1);
        assertEquals("end", end.name(), events.toString());
        assertEquals(3, end.data().getInt("exitCode"));
        assertEquals("exit status 3", end.data().getString("status"));
        assertEquals("/tmp\n1\n", joined(run("{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"pwd; echo $X\"],\"cwd\":\"/tmp\","
                + "\"env\":{\"X\":\"1\"}}", Integer.MAX_VALUE), "stdout"));
    }

    @Test
    void shouldKeepAProcessWhoseClientWentAwayAndLetItBeAttachedFedAndSignalled() throws Exception {
        // started, then the client reads only its start and goes away
        List<Event> first = run("{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"while read l; do echo got:$l; done; "
                + "echo closed\"],\"stdin\":true,\"tag\":\"reader\"}", 1);
        int pid = first.get(0).data().getInt("pid");
        JsonObject listed = user.get("runtimes/" + runtime + "/processes").json();
        assertTrue(listed.getJsonArray("processes").stream().map(JsonValue::asJsonObject)
                .anyMatch(p -> p.getInt("pid") == pid && p.getString("tag", "").equals("reader")), listed.toString());

        List<Event> attached = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> stream(HttpRequest.newBuilder(uri("/" + pid + "/events")).GET(),
                Integer.MAX_VALUE, attached));
        reader.start();
        // the attach's start comes first: only output after it reaches the new client
        for (int i = 0; i < 100 && attached.isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertEquals(204, user.postBytes("runtimes/" + runtime + "/processes/" + pid + "/stdin", "application/octet-stream",
                "a\nb\n".getBytes(StandardCharsets.UTF_8)).status());
        assertEquals(204, user.delete("runtimes/" + runtime + "/processes/" + pid + "/stdin").status());
        reader.join(20_000);
        assertEquals("got:a\ngot:b\nclosed\n", joined(attached, "stdout"), attached.toString());
        assertEquals(0, attached.get(attached.size() - 1).data().getInt("exitCode"));

        List<Event> sleeper = run("{\"cmd\":\"sleep\",\"args\":[\"60\"]}", 1);
        int sleeping = sleeper.get(0).data().getInt("pid");
        assertEquals(204, user.post("runtimes/" + runtime + "/processes/" + sleeping + "/signal",
                Json.createObjectBuilder().add("signal", "SIGKILL").build()).status());
        // the signal is sent at once; the process leaves the list when its exit has been seen,
        // a moment later on a busy machine
        for (int i = 0; i < 100 && listsPid(sleeping); i++) {
            Thread.sleep(50);
        }
        assertFalse(listsPid(sleeping), "a killed process still listed after 5 s");
        DockyardApi.Answer again = user.post("runtimes/" + runtime + "/processes/" + sleeping + "/signal",
                Json.createObjectBuilder().add("signal", "SIGKILL").build());
        assertEquals(404, again.status(), "a process gone is not found: " + again.body());
    }

    private static boolean listsPid(int pid) {
        return user.get("runtimes/" + runtime + "/processes").json().getJsonArray("processes").stream()
                .map(JsonValue::asJsonObject).anyMatch(p -> p.getInt("pid") == pid);
    }

    @Test
    void shouldRunOnATerminalThatIsResized() throws Exception {
        List<Event> started = run("{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"read; stty size\"],"
                + "\"terminal\":{\"cols\":80,\"rows\":24}}", 1);
        int pid = started.get(0).data().getInt("pid");
        List<Event> attached = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> stream(HttpRequest.newBuilder(uri("/" + pid + "/events")).GET(),
                Integer.MAX_VALUE, attached));
        reader.start();
        for (int i = 0; i < 100 && attached.isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertEquals(204, user.put("runtimes/" + runtime + "/processes/" + pid + "/terminal",
                Json.createObjectBuilder().add("cols", 100).add("rows", 30).build()).status());
        assertEquals(204, user.postBytes("runtimes/" + runtime + "/processes/" + pid + "/stdin?terminal=true",
                "application/octet-stream", "\n".getBytes(StandardCharsets.UTF_8)).status());
        reader.join(20_000);
        assertTrue(joined(attached, "terminal").contains("30 100"), attached.toString());
    }

    @Test
    void shouldRefuseWhatCannotRunAndWhatIsNotTheCallers() throws Exception {
        HttpResponse<String> missing = HTTP.send(start("{\"cmd\":\"pwd\",\"cwd\":\"/no/such/dir\"}").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, missing.statusCode(), missing.body());
        assertTrue(missing.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
        assertTrue(missing.body().contains("/no/such/dir"), missing.body());
        assertEquals(400, HTTP.send(start("{\"cmd\":\"ls\",\"argz\":[]}").build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
        assertEquals(404, user.get("runtimes/" + runtime + "/processes/99999/events").status());
        assertEquals(404, user.delete("runtimes/" + runtime + "/processes/99999/stdin").status());
        DockyardApi other = ADMIN.newUser("it-processes-other", "user");
        assertEquals(404, other.get("runtimes/" + runtime + "/processes").status());
        assertEquals(404, other.post("runtimes/" + runtime + "/processes",
                Json.createObjectBuilder().add("cmd", "ls").build()).status());
    }

    private static URI uri(String rest) {
        return URI.create(BASE + "/api/v1/runtimes/" + runtime + "/processes" + rest);
    }

    private static HttpRequest.Builder start(String body) {
        return HttpRequest.newBuilder(uri("")).header("Content-Type", "application/json").header("X-API-Key", user.key())
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /** Starts a process and reads at most {@code max} of its events (then goes away). */
    private static List<Event> run(String body, int max) {
        return stream(start(body), max, new ArrayList<>());
    }

    /** Reads a stream's events into {@code events} as they come, at most {@code max}; answers {@code events}. */
    private static List<Event> stream(HttpRequest.Builder request, int max, List<Event> events) {
        try {
            HttpResponse<InputStream> answer = HTTP.send(request.setHeader("X-API-Key", user.key())
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, answer.statusCode());
            assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(answer.body(), StandardCharsets.UTF_8))) {
                String name = null;
                for (String line = lines.readLine(); line != null && events.size() < max; line = lines.readLine()) {
                    if (line.startsWith("event: ")) {
                        name = line.substring(7);
                    } else if (line.startsWith("data: ") && name != null) {
                        events.add(new Event(name, Json.createReader(new StringReader(line.substring(6))).readObject()));
                        name = null;
                    }
                }
            }
        } catch (Exception e) {
            throw new AssertionError("the process's stream failed after " + events, e);
        }
        return events;
    }

    private static String joined(List<Event> events, String name) {
        StringBuilder text = new StringBuilder();
        events.stream().filter(e -> e.name().equals(name)).forEach(e -> text.append(e.text()));
        return text.toString();
    }
}
