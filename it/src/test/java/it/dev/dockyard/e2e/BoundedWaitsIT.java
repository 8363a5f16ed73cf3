package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every wait is bounded, and a waiting client holds no server thread: an action's timeout has a
 * maximum, and open event streams and idempotent retries waiting for a first answer leave the
 * control plane's threads free for actions. On the disposable control plane, which no other suite
 * uses meanwhile: its thread dump holds this suite's waits only.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class BoundedWaitsIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String BASE = DisposableControlPlane.server().url() + "/api/v1/";
    private static final String KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> CREATED = new ArrayList<>();
    private static final int WAITERS = 40;

    private static String runtimeId;

    @BeforeAll
    static void provision() {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-bounded-" + RUN).build(), 120);
        runtimeId = answer.json().getString("id");
        CREATED.add(runtimeId);
        assertEquals(201, answer.status(), answer.body());
    }

    @AfterAll
    static void removeWhatWasCreated() {
        CREATED.forEach(id -> API.delete("runtimes/" + id));
    }

    @Test
    void shouldRefuseActionTimeoutOverMaximum() {
        DockyardApi.Answer answer = API.post("runtimes/" + runtimeId + "/actions", Json.createObjectBuilder()
                .add("action", "run").add("timeout", 1_000_000_000)
                .add("args", Json.createObjectBuilder().add("command", "echo never")).build());
        assertEquals(400, answer.status(), answer.body());
        assertTrue(answer.contentType().startsWith("application/problem+json"), answer.contentType());
        JsonObject problem = answer.json();
        assertEquals("https://dockyard.dev/problems/invalid-action", problem.getString("type"));
        assertEquals(3600, problem.getInt("maximum"), problem.toString());
        assertTrue(problem.getString("detail").contains("at most 3600 seconds"), problem.toString());

        // the maximum itself is fine, and so is the echo that follows
        JsonObject echo = API.act(runtimeId, Json.createObjectBuilder().add("action", "run").add("timeout", 3600)
                .add("args", Json.createObjectBuilder().add("command", "echo bounded")).build());
        assertEquals("bounded", echo.getString("content"));
    }

    @Test
    void shouldAnswerActionsWhileStreamsAndIdempotentRetriesWait() throws Exception {
        // HTTP/1.1, a connection per waiting request, as the agents' clients (httpx) connect: the JDK
        // client's default upgrades to HTTP/2 and multiplexes them on one connection, which Liberty
        // may end with a GOAWAY that fails the streams opened on it (measured in a fresh-clone run)
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<InputStream> streams = new ArrayList<>();
        try {
            List<CompletableFuture<HttpResponse<InputStream>>> opening = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                opening.add(http.sendAsync(request("runtimes/" + runtimeId + "/events")
                        .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream()));
            }
            for (CompletableFuture<HttpResponse<InputStream>> open : opening) {
                HttpResponse<InputStream> response = open.get(60, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode());
                streams.add(response.body());
            }

            // one provision waiting for READY, and retries of it waiting for its answer
            String body = Json.createObjectBuilder().add("conversationId", "it-bounded-retried-" + RUN).build()
                    .toString();
            String key = "bounded-" + RUN;
            List<CompletableFuture<HttpResponse<String>>> provisions = new ArrayList<>();
            for (int i = 0; i <= WAITERS; i++) {
                provisions.add(http.sendAsync(request("runtimes").header("Content-Type", "application/json")
                        .header("Prefer", "wait=90").header("Idempotency-Key", key)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            Thread.sleep(300);

            List<String> parked = threadsWaitingInRequestCode();
            long pinned = parked.size();
            long[] millis = new long[10];
            for (int i = 0; i < millis.length; i++) {
                long started = System.nanoTime();
                JsonObject echo = API.act(runtimeId, DockyardApi.run("echo still-here"));
                millis[i] = (System.nanoTime() - started) / 1_000_000;
                assertEquals("still-here", echo.getString("content"));
            }
            Arrays.sort(millis);
            System.out.println("BoundedWaitsIT: " + pinned + " server threads parked in request code; echo ms "
                    + Arrays.toString(millis));
            assertTrue(pinned < 5, () -> pinned + " server threads are parked in Dockyard's request code while "
                    + WAITERS + " streams and retries wait; the first of them:\n" + parked.get(0));
            // not a speed check (docker/bench.sh is): a server whose threads the waits hold answers
            // only once they end, after 60-90 s; one that is merely busy beside the provision's boot
            // (2 cores) answers in a second (p50 319 ms seen on the slow machine of 2026-12-02)
            assertTrue(millis[millis.length / 2] < 1000, "echo p50 " + millis[millis.length / 2] + " ms");
            assertTrue(millis[millis.length - 1] < 10_000, "slowest echo " + millis[millis.length - 1] + " ms");

            String id = null;
            int status = 0;
            int replayed = 0;
            for (CompletableFuture<HttpResponse<String>> provision : provisions) {
                HttpResponse<String> answer = provision.get(120, TimeUnit.SECONDS);
                JsonObject runtime = DockyardApi.parse(answer.body());
                if (id == null) {
                    id = runtime.getString("id");
                    status = answer.statusCode();
                    CREATED.add(id);
                }
                assertEquals(id, runtime.getString("id"), "every retry answers the first runtime");
                assertEquals(status, answer.statusCode(), answer.body());
                if ("true".equals(answer.headers().firstValue("Idempotent-Replayed").orElse(""))) {
                    replayed++;
                }
            }
            assertEquals(201, status, "READY within the wait");
            assertEquals(WAITERS, replayed, "one first answer, the rest replayed");
        } finally {
            for (InputStream stream : streams) {
                stream.close();
            }
        }
    }

    private static HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(BASE + path)).header("X-API-Key", KEY).timeout(Duration.ofSeconds(180));
    }

    /**
     * Server threads parked (sleeping, polling a queue, waiting on a future) with the API's or the
     * application services' code on their stack: a thread a waiting client holds. Each as the dump
     * gives it, so that a failure says where they wait.
     */
    private static List<String> threadsWaitingInRequestCode() throws Exception {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(DisposableControlPlane.server().pid().orElseThrow()), "Thread.print").redirectErrorStream(true).start();
        String dump;
        try (InputStream out = jcmd.getInputStream()) {
            dump = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(jcmd.waitFor(30, TimeUnit.SECONDS), "jcmd did not finish");
        assertTrue(dump.contains("Full thread dump"), dump.length() > 500 ? dump.substring(0, 500) : dump);
        return Arrays.stream(dump.split("\\R\\R"))
                .filter(t -> t.contains("java.lang.Thread.State: WAITING") || t.contains("State: TIMED_WAITING"))
                .filter(t -> t.contains("at dev.dockyard.api.") || t.contains("at dev.dockyard.application."))
                .toList();
    }
}
