package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Two control planes of one deployment on one PostgreSQL database (the one
 * {@code docker/ensure-postgresql.sh} runs, which the build started), beside the shared server:
 * kill -9 of the one that holds the reconciler's lease while it provisions ten runtimes and runs
 * twenty actions. The survivor answers for every READY runtime at once, takes the lease over,
 * fails the dead one's provisions cleanly, and leaves neither orphan sandboxes nor rows without
 * sandbox within 60 s; at no sampled moment do two instances hold a fresh reconciler lease.
 */
@ResourceLock(ControlPlane.OWN_SERVERS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HighAvailabilityIT {

    private static final String DATABASE = "dockyard_ha_it";
    private static final String DEPLOYMENT = "ha-it";
    private static final String LABEL = "dev.dockyard.control-plane=" + DEPLOYMENT;
    private static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final Path REPO = Path.of(System.getProperty("dockyard.wlp")).resolve("../../../../..").normalize();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private static String jdbcUrl;
    private static String password;
    private static final Server A = new Server("ha-a", ControlPlaneSettings.HA_PORT);
    private static final Server B = new Server("ha-b", ControlPlaneSettings.HA_PORT + 1);

    /** One control-plane process: the build's Liberty server with an output directory and a port of its own. */
    record Server(String id, int port) {

        Path output() {
            return Path.of(System.getProperty("dockyard.server-output")).resolveSibling("ha-output-" + id);
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }

        DockyardApi api() {
            return new DockyardApi(url(), ADMIN_KEY);
        }

        long pid() throws IOException {
            return Long.parseLong(Files.readString(output().resolve(".pid/dockyard.pid")).strip());
        }

        Path log() {
            return output().resolve("dockyard/logs/messages.log");
        }
    }

    @BeforeAll
    static void startTwoControlPlanes() throws Exception {
        String out = postgresql(DATABASE);
        jdbcUrl = out.lines().filter(l -> l.startsWith("jdbc:postgresql:")).reduce((a, b) -> b).orElseThrow();
        password = Files.readString(Path.of("/var/lib/dockyard-postgresql/password")).strip();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "dockyard", password);
             Statement s = c.createStatement()) {
            // an empty database each run: the migrations create the schema
            s.execute("DROP SCHEMA IF EXISTS public CASCADE");
            s.execute("CREATE SCHEMA public");
        }
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        String secretsKey = Base64.getEncoder().encodeToString(key);
        // one after the other: the first migrates the schema and creates the bootstrap admin
        start(A, secretsKey);
        start(B, secretsKey);
    }

    @AfterAll
    static void stopBoth() throws Exception {
        for (Server server : List.of(A, B)) {
            try {
                for (String id : sandboxesOf(null)) {
                    // removed through whichever instance still answers
                    server.api().delete("runtimes/" + id);
                }
            } catch (RuntimeException | AssertionError ignored) {
                // that one is dead
            }
            ProcessBuilder stop = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "stop",
                    "dockyard").redirectErrorStream(true);
            stop.environment().put("WLP_OUTPUT_DIR", server.output().toString());
            Process process = stop.start();
            process.getInputStream().readAllBytes();
            process.waitFor(120, TimeUnit.SECONDS);
        }
        // a failed run may leave sandboxes both instances were too dead to remove: this test's own
        for (String name : DockerCli.containersLabelled(LABEL)) {
            DockerCli.run("rm", "-f", "-v", name);
        }
    }

    /**
     * PostgreSQL stopped under both instances (the soak found every API answering 500 then): each
     * face answers 503 with Retry-After, the API as database-unavailable problem+json, E2B's in its
     * shape, the service proxy before its admission; once the database is back the same requests
     * succeed without a restart, and the runtime never stopped.
     */
    @Test
    @Order(1)
    void shouldAnswer503WithRetryAfterWhileTheDatabaseIsDownAndRecoverWhenItIsBack() throws Exception {
        DockyardApi.Answer made = A.api().provision(Json.createObjectBuilder()
                .add("conversationId", "ha-db-" + UUID.randomUUID().toString().substring(0, 8)).build(), 120);
        assertEquals(201, made.status(), made.body());
        String id = made.json().getString("id");
        postgresql("--stop");
        try {
            for (Server server : List.of(A, B)) {
                DockyardApi.Answer read = server.api().get("runtimes/" + id);
                assertEquals(503, read.status(), read.body());
                assertEquals("5", read.raw().headers().firstValue("Retry-After").orElse(""), read.body());
                assertEquals("https://dockyard.dev/problems/database-unavailable", read.json().getString("type"));
                DockyardApi.Answer act = server.api().post("runtimes/" + id + "/actions", DockyardApi.run("echo down"));
                assertEquals(503, act.status(), act.body());
                HttpResponse<String> e2b = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/e2b/sandboxes/rt"
                        + id.substring(3))).header("X-API-Key", ADMIN_KEY).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(503, e2b.statusCode(), e2b.body());
                assertEquals(503, DockyardApi.parse(e2b.body()).getInt("code"), e2b.body());
                assertTrue(e2b.headers().firstValue("Retry-After").isPresent(), e2b.headers().toString());
                HttpResponse<String> proxied = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + (server.port() + 1000) + "/" + id + "/alive")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(503, proxied.statusCode(), proxied.body());
                assertEquals("5", proxied.headers().firstValue("Retry-After").orElse(""), proxied.body());
            }
        } finally {
            postgresql(DATABASE);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> A.api().get("runtimes/" + id).status() == 200 && B.api().get("runtimes/" + id).status() == 200);
        assertEquals("READY", B.api().get("runtimes/" + id).json().getString("status"));
        assertEquals("back", B.api().act(id, DockyardApi.run("echo back")).getString("content"));
        assertEquals(204, A.api().delete("runtimes/" + id).status());
    }

    /** docker/ensure-postgresql.sh with these arguments: the cluster the build started (HighAvailabilityIT's alone). */
    private static String postgresql(String argument) throws Exception {
        Process script = new ProcessBuilder("bash", REPO.resolve("docker/ensure-postgresql.sh").toString(), argument)
                .redirectErrorStream(true).start();
        String out = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(script.waitFor(300, TimeUnit.SECONDS) && script.exitValue() == 0, "ensure-postgresql.sh: " + out);
        return out;
    }

    @Test
    @Order(2)
    void shouldLetTheSurvivorFinishOrFailEverythingCleanlyAfterKillNine() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        // three runtimes READY before the kill, provisioned through one instance and the other
        List<String> ready = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Server through = i % 2 == 0 ? A : B;
            DockyardApi.Answer answer = through.api().provision(Json.createObjectBuilder()
                    .add("conversationId", "ha-ready-" + run + "-" + i).build(), 120);
            assertEquals(201, answer.status(), answer.body());
            ready.add(answer.json().getString("id"));
        }
        // any instance answers for any runtime
        for (String id : ready) {
            for (Server server : List.of(A, B)) {
                assertEquals("ok-" + server.id(), server.api().act(id, DockyardApi.run("echo ok-" + server.id()))
                        .getString("content"));
            }
        }

        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> reconcilerHolder() != null);
        Server victim = reconcilerHolder().equals(A.id()) ? A : B;
        Server survivor = victim == A ? B : A;

        AtomicBoolean sampling = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
        List<String> holders = new ArrayList<>();
        CompletableFuture<Void> sampler = CompletableFuture.runAsync(() -> sampleReconcilers(sampling, overlaps, holders));

        // ten provisions and twenty actions through the victim, then kill -9 while they run
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String conversation = "ha-kill-" + run + "-" + i;
            posts.add(CompletableFuture.supplyAsync(() -> victim.api().post("runtimes",
                    Json.createObjectBuilder().add("conversationId", conversation).build())));
        }
        List<CompletableFuture<?>> actions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = ready.get(i % ready.size());
            String command = "sleep 0." + (i % 10) + "; echo action-" + i;
            actions.add(CompletableFuture.supplyAsync(() -> victim.api().post("runtimes/" + id + "/actions",
                    DockyardApi.run(command))));
        }
        Set<String> ids = new HashSet<>();
        for (CompletableFuture<DockyardApi.Answer> post : posts) {
            DockyardApi.Answer answer = post.get(120, TimeUnit.SECONDS);
            assertEquals(202, answer.status(), answer.body());
            ids.add(answer.json().getString("id"));
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> sandboxesOf(ids).size() >= 3);
        ProcessHandle process = ProcessHandle.of(victim.pid()).orElseThrow();
        process.destroyForcibly();
        process.onExit().get(30, TimeUnit.SECONDS);
        long killedAt = System.nanoTime();
        int sandboxesAtKill = sandboxesOf(ids).size();
        for (CompletableFuture<?> action : actions) {
            // each either answered before the kill or lost its connection: none hangs
            try {
                action.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException lostWithTheVictim) {
                // expected for actions under way at the kill
            }
        }

        // every READY runtime keeps answering through the survivor, at once
        for (String id : ready) {
            assertEquals("still-" + id, survivor.api().act(id, DockyardApi.run("echo still-" + id)).getString("content"));
        }

        // the dead instance's provisions are finished or failed, and Docker agrees with the database
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            Set<String> live = liveOf(survivor, ids);
            return sandboxesOf(ids).equals(live) && ids.stream().noneMatch(id -> isStarting(survivor, id));
        });
        long seconds = (System.nanoTime() - killedAt) / 1_000_000_000;
        Set<String> live = liveOf(survivor, ids);
        for (String id : live) {
            assertEquals("READY", survivor.api().get("runtimes/" + id).json().getString("status"));
        }
        // the READY runtimes' sandboxes are all there, and nothing of the deployment is unaccounted for
        Set<String> allRows = new HashSet<>(ready);
        allRows.addAll(live);
        assertEquals(allRows, sandboxesOf(null), "sandboxes of the deployment against its live rows");
        for (String id : ready) {
            assertEquals("READY", survivor.api().get("runtimes/" + id).json().getString("status"));
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> survivor.id().equals(reconcilerHolder()));
        sampling.set(false);
        sampler.get(10, TimeUnit.SECONDS);
        System.out.println("HA: kill -9 of " + victim.id() + " (reconciler) with " + sandboxesAtKill
                + " of 10 sandboxes created; reconciled " + seconds + " s after the kill; " + live.size()
                + " of the 10 READY, the rest ERROR; reconciler lease holders seen: " + holders);
        assertEquals(List.of(), List.copyOf(overlaps), "moments with two fresh reconciler leases");
        assertEquals(List.of(victim.id(), survivor.id()), holders, "the lease passed once, to the survivor");
        assertTrue(Files.readString(survivor.log()).contains("Instance " + survivor.id()
                + " holds the lease 'reconciler' now"));

        for (String id : allRows) {
            assertEquals(204, survivor.api().delete("runtimes/" + id).status());
        }
        assertEquals(Set.of(), sandboxesOf(null));
    }

    private static void start(Server server, String secretsKey) throws Exception {
        // a fresh output directory: Liberty's workarea of an earlier run would keep that run's configuration
        new ProcessBuilder("rm", "-rf", server.output().toString()).start().waitFor(60, TimeUnit.SECONDS);
        Files.createDirectories(server.output());
        ProcessBuilder builder = new ProcessBuilder(System.getProperty("dockyard.wlp") + "/bin/server", "start",
                "dockyard").redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("WLP_OUTPUT_DIR", server.output().toString());
        env.put("HTTP_PORT", String.valueOf(server.port()));
        env.put("DOCKYARD_PROXY_PORT", String.valueOf(server.port() + 1000)); // its services' listener
        env.put("DOCKYARD_BOOTSTRAP_ADMIN_KEY", ADMIN_KEY);
        env.put("DOCKYARD_INSTANCE", DEPLOYMENT);
        env.put("JVM_ARGS", ControlPlaneSettings.TEST_JVM);
        env.put("DOCKYARD_WARM_UP_REHEARSAL", ControlPlaneSettings.REHEARSAL);
        env.put("DOCKYARD_INSTANCE_ID", server.id());
        env.put("DOCKYARD_DB_KIND", "postgresql");
        env.put("DOCKYARD_DB_URL", jdbcUrl);
        env.put("DOCKYARD_DB_USER", "dockyard");
        env.put("DOCKYARD_DB_PASSWORD", password);
        env.put("DOCKYARD_SECRETS_KEY", secretsKey);
        env.put("DOCKYARD_LEASES_TTL", "10");
        env.put("DOCKYARD_RECONCILER_GRACE", "10");
        env.put("DOCKYARD_NODES", "local");
        env.put("DOCKYARD_QUOTA_MAX_RUNTIMES", "100");
        env.put("DOCKYARD_QUOTA_MAX_CPUS", "100");
        env.put("DOCKYARD_QUOTA_MAX_MEMORY_MB", "200000");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0, "server start: " + out);
        URI health = URI.create(server.url() + "/health/ready");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try {
                if (HTTP.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError(server.id() + " never became ready");
    }

    /**
     * The reconciler lease's holder as the database has it, while unexpired; null otherwise. The
     * expiry is compared here: the control planes wrote it from their clocks, as this machine's.
     */
    private static String reconcilerHolder() throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl, "dockyard", password);
             PreparedStatement s = c.prepareStatement("SELECT holder, expires_at FROM dy_lease WHERE name = 'reconciler'")) {
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getTimestamp(2).toInstant().isAfter(Instant.now()) ? rs.getString(1) : null;
            }
        }
    }

    /**
     * Every 200 ms: which instances say (in /health/live) that they hold a fresh reconciler lease,
     * and who holds it in the database; two at once is an overlap.
     */
    private static void sampleReconcilers(AtomicBoolean sampling, ConcurrentLinkedQueue<String> overlaps,
                                          List<String> holders) {
        for (int i = 0; i < 3000 && sampling.get(); i++) {
            List<String> fresh = new ArrayList<>();
            for (Server server : List.of(A, B)) {
                if (leasesOf(server).contains("reconciler")) {
                    fresh.add(server.id());
                }
            }
            if (fresh.size() > 1) {
                overlaps.add(i + ": " + fresh);
            }
            try {
                String holder = reconcilerHolder();
                if (holder != null && (holders.isEmpty() || !holders.get(holders.size() - 1).equals(holder))) {
                    holders.add(holder);
                }
                Thread.sleep(200);
            } catch (Exception e) {
                overlaps.add("sampling failed: " + e);
                return;
            }
        }
    }

    private static String leasesOf(Server server) {
        try {
            HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/health/live"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            JsonObject health = DockyardApi.parse(answer.body());
            return health.getJsonArray("checks").stream().map(JsonObject.class::cast)
                    .filter(check -> check.getString("name").equals("instance"))
                    .map(check -> check.getJsonObject("data").getString("leases", ""))
                    .findFirst().orElse("");
        } catch (IOException | RuntimeException dead) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static boolean isStarting(Server server, String id) {
        String status = server.api().get("runtimes/" + id).json().getString("status");
        return status.equals("STARTING_RUNTIME") || status.equals("RUNTIME_STARTED") || status.equals("BUILDING_RUNTIME");
    }

    private static Set<String> liveOf(Server server, Set<String> ids) {
        return ids.stream().filter(id -> {
            String status = server.api().get("runtimes/" + id).json().getString("status");
            return !status.equals("ERROR") && !status.equals("STOPPED");
        }).collect(Collectors.toSet());
    }

    /** Runtime ids of the deployment's containers on the engine, among {@code ids} (all when null). */
    private static Set<String> sandboxesOf(Set<String> ids) {
        String out = DockerCli.ok("ps", "-a", "--filter", "label=" + LABEL, "--format",
                "{{.Label \"dev.dockyard.runtime-id\"}}");
        Map<String, Boolean> seen = new HashMap<>();
        out.lines().filter(l -> !l.isBlank()).forEach(l -> seen.put(l, true));
        return seen.keySet().stream().filter(id -> ids == null || ids.contains(id)).collect(Collectors.toSet());
    }
}
