package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Warm pools on the real engine: concurrent claims beyond the pool, refill, a member killed by hand, an
 * image rebuilt under its tag, and a kill -9 of the control plane with a full pool. The pools use
 * a memory size no other test asks for, so no other test's runtime is served from them. On the
 * disposable control plane (its kill -9).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class WarmPoolIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String POOL = "it-warm";
    private static final int MEMORY = 640;
    /** Five members, claimed by twice as many clients: half the claims warm, half cold. Ten and twenty
     * proved the same and cost ~100 s more of CI boots on two cores. */
    private static final int SIZE = 5;
    private static final int CLAIMS = 2 * SIZE;
    private static final String REBUILT_POOL = "it-rebuild";
    private static final String REBUILT_IMAGE = "dockyard-it-pool:latest";
    private static final String INSTANCE = DisposableControlPlane.INSTANCE;

    /** A local run that was stopped half-way leaves its pools in the database the next run reuses. */
    @BeforeAll
    static void removeLeftoverPools() {
        removePools();
    }

    @AfterAll
    static void removePools() {
        API.delete("pools/" + POOL);
        API.delete("pools/" + REBUILT_POOL);
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> members(POOL).isEmpty() && members(REBUILT_POOL).isEmpty());
        DockerCli.run("rmi", REBUILT_IMAGE);
    }

    @Test
    @Order(1)
    void shouldRefusePoolsToUsersAndBadDefinitions() {
        String userId = "it-pool-user-" + UUID.randomUUID().toString().substring(0, 8);
        String userKey = API.post("users", Json.createObjectBuilder().add("userId", userId).add("role", "user")
                .build()).json().getString("apiKey");
        DockyardApi.Answer notAdmin = API.withKey(userKey).get("pools");
        assertEquals(403, notAdmin.status(), notAdmin.body());
        assertEquals(403, API.withKey(userKey).put("pools/" + POOL, Json.createObjectBuilder().add("size", 1).build())
                .status());
        DockyardApi.Answer unknownField = API.put("pools/" + POOL, Json.createObjectBuilder().add("size", 1)
                .add("memoryMB", 512).build());
        assertEquals(400, unknownField.status(), unknownField.body());
        assertTrue(unknownField.body().contains("memoryMB"), unknownField.body());
        DockyardApi.Answer noSize = API.put("pools/" + POOL, Json.createObjectBuilder().add("memoryMb", 512).build());
        assertEquals(400, noSize.status(), noSize.body());
        DockyardApi.Answer badName = API.put("pools/Bad_Name", Json.createObjectBuilder().add("size", 1).build());
        assertEquals(400, badName.status(), badName.body());
        assertEquals(404, API.get("pools/it-none").status());
    }

    @Test
    @Order(2)
    void shouldClaimTwiceThePoolSizeConcurrentlyAsDistinctSandboxesAndRefill() throws Exception {
        DockyardApi.Answer created = API.put("pools/" + POOL, Json.createObjectBuilder().add("size", SIZE)
                .add("memoryMb", MEMORY).add("maxBooting", 3).build());
        assertEquals(201, created.status(), created.body());
        awaitReady(POOL, SIZE);
        Set<String> membersBefore = members(POOL).keySet();
        assertEquals(SIZE, membersBefore.size());
        long hitsBefore = API.get("pools/" + POOL).json().getJsonNumber("hits").longValue();

        String run = UUID.randomUUID().toString().substring(0, 8);
        ExecutorService clients = Executors.newFixedThreadPool(CLAIMS);
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < CLAIMS; i++) {
            String conversation = "it-pool-" + run + "-" + i;
            JsonObject body = Json.createObjectBuilder().add("conversationId", conversation)
                    .add("sandbox", Json.createObjectBuilder().add("memoryMb", MEMORY)
                            .add("env", Json.createObjectBuilder().add("CANARY", conversation))).build();
            posts.add(CompletableFuture.supplyAsync(() -> API.provision(body, 120), clients));
        }
        Map<String, String> conversationOf = new ConcurrentHashMap<>();
        Set<String> warm = new HashSet<>();
        try {
            for (CompletableFuture<DockyardApi.Answer> post : posts) {
                DockyardApi.Answer answer = post.get();
                assertEquals(201, answer.status(), answer.body());
                JsonObject runtime = answer.json();
                assertEquals("READY", runtime.getString("status"), answer.body());
                conversationOf.put(runtime.getString("id"), runtime.getString("conversationId"));
                if (POOL.equals(runtime.getString("pool", null))) {
                    warm.add(runtime.getString("id"));
                    assertTrue(runtime.getString("statusMessage").contains("from pool '" + POOL + "'"),
                            runtime.getString("statusMessage"));
                }
            }
            clients.shutdown();
            assertEquals(CLAIMS, conversationOf.size(), "a runtime per claim");
            // every member was claimed (once: one runtime each); a refill that was ready in time may serve more
            assertTrue(warm.containsAll(membersBefore), "every warm sandbox claimed: " + warm + " " + membersBefore);
            Set<String> containers = new HashSet<>();
            for (String id : conversationOf.keySet()) {
                containers.add(DockerCli.inspect("dockyard-" + id, "{{.Id}}").strip());
                // each sandbox holds its own runtime's configuration and no other's
                JsonObject observation = API.act(id, DockyardApi.run("env | grep '^CANARY='"));
                assertEquals("CANARY=" + conversationOf.get(id), observation.getString("content").strip(),
                        "runtime " + id);
            }
            assertEquals(CLAIMS, containers.size(), "a distinct sandbox per claim");
            String history = API.events(warm.iterator().next(), Duration.ofSeconds(2));
            assertTrue(history.contains("RUNTIME_STARTED") && history.contains("claimed warm sandbox"), history);
            assertEquals(hitsBefore + warm.size(), API.get("pools/" + POOL).json().getJsonNumber("hits").longValue());

            awaitReady(POOL, SIZE);
            Set<String> refilled = members(POOL).keySet();
            assertTrue(refilled.stream().noneMatch(membersBefore::contains), "the pool refilled with new sandboxes");
        } finally {
            conversationOf.keySet().forEach(id -> API.delete("runtimes/" + id));
        }
        for (String id : warm) {
            assertFalse(DockerCli.run("inspect", "dockyard-" + id).exitCode() == 0,
                    "a claimed sandbox is removed with its runtime, never returned: " + id);
        }
        assertEquals(SIZE, members(POOL).size());
    }

    @Test
    @Order(3)
    void shouldReplaceMemberKilledByHand() {
        awaitReady(POOL, SIZE);
        String victim = members(POOL).keySet().iterator().next();
        DockerCli.ok("kill", "dockyard-" + victim);
        // removed by the keeper (not just stopped), and a new member booted in its place
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> DockerCli.run("inspect", "dockyard-" + victim).exitCode() != 0);
        awaitReady(POOL, SIZE);
        assertFalse(members(POOL).containsKey(victim));
    }

    @Test
    @Order(4)
    void shouldDrainAndRefillWhenImageIsRebuilt() {
        String base = DockerCli.ok("image", "inspect", "--format", "{{.Id}}", "dockyard/sandbox:latest").strip();
        DockerCli.ok("tag", base, REBUILT_IMAGE);
        DockyardApi.Answer created = API.put("pools/" + REBUILT_POOL, Json.createObjectBuilder().add("size", 2)
                .add("memoryMb", MEMORY).add("image", REBUILT_IMAGE).build());
        assertEquals(201, created.status(), created.body());
        awaitReady(REBUILT_POOL, 2);
        Set<String> before = members(REBUILT_POOL).keySet();

        // a rebuild under the same tag: another image id
        String scratch = "it-rebuild-" + UUID.randomUUID().toString().substring(0, 8);
        DockerCli.ok("create", "--name", scratch, REBUILT_IMAGE);
        try {
            DockerCli.ok("commit", "--change", "LABEL it.rebuilt=" + scratch, scratch, REBUILT_IMAGE);
        } finally {
            DockerCli.run("rm", scratch);
        }
        String rebuilt = DockerCli.ok("image", "inspect", "--format", "{{.Id}}", REBUILT_IMAGE).strip();
        assertNotEquals(base, rebuilt);

        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
            Map<String, String> now = members(REBUILT_POOL);
            return now.size() == 2 && now.keySet().stream().noneMatch(before::contains)
                    && now.values().stream().allMatch(rebuilt::equals) && readyOf(REBUILT_POOL) == 2;
        });
        for (String id : before) {
            assertFalse(DockerCli.run("inspect", "dockyard-" + id).exitCode() == 0, "drained member removed: " + id);
        }
    }

    @Test
    @Order(5)
    void shouldLeaveNoOrphanNorDoubleClaimAfterKillNineWithFullPool() throws Exception {
        awaitReady(POOL, SIZE);
        Set<String> before = members(POOL).keySet();
        DisposableControlPlane.server().killNine();
        DisposableControlPlane.server().start();
        awaitReady(POOL, SIZE);
        Map<String, String> after = members(POOL);
        assertEquals(SIZE, after.size(), "no orphan member: " + after.keySet());
        assertTrue(after.keySet().containsAll(before), "the warm sandboxes survive a restart of the control plane");

        String run = UUID.randomUUID().toString().substring(0, 8);
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            JsonObject body = Json.createObjectBuilder().add("conversationId", "it-pool-kill-" + run + "-" + i)
                    .add("sandbox", Json.createObjectBuilder().add("memoryMb", MEMORY)).build();
            posts.add(CompletableFuture.supplyAsync(() -> API.provision(body, 120)));
        }
        Set<String> ids = new HashSet<>();
        Set<String> containers = new HashSet<>();
        try {
            for (CompletableFuture<DockyardApi.Answer> post : posts) {
                DockyardApi.Answer answer = post.get();
                assertEquals(201, answer.status(), answer.body());
                String id = answer.json().getString("id");
                ids.add(id);
                assertEquals(POOL, answer.json().getString("pool", null), answer.body());
                assertTrue(before.contains(id), "served by a member that survived the restart: " + id);
                containers.add(DockerCli.inspect("dockyard-" + id, "{{.Id}}").strip());
            }
            assertEquals(SIZE, containers.size(), "no sandbox claimed twice");
        } finally {
            ids.forEach(id -> API.delete("runtimes/" + id));
        }
        // nothing stopped and left behind: every container of the pool is a running member
        awaitReady(POOL, SIZE);
        String all = DockerCli.ok("ps", "-a", "--filter", "label=dev.dockyard.pool=" + POOL, "--filter",
                "label=dev.dockyard.control-plane=" + INSTANCE, "--format", "{{.Label \"dev.dockyard.runtime-id\"}}");
        assertEquals(members(POOL).keySet(), all.lines().filter(l -> !l.isBlank()).collect(Collectors.toSet()));
    }

    private static void awaitReady(String pool, int size) {
        Awaitility.await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .until(() -> readyOf(pool) == size && members(pool).size() == size);
    }

    private static int readyOf(String pool) {
        DockyardApi.Answer answer = API.get("pools/" + pool);
        return answer.status() == 200 ? answer.json().getInt("ready") : -1;
    }

    /**
     * The running containers labelled as members of {@code pool} whose runtime is not live (the
     * pool's members), by runtime id → image id.
     */
    private static Map<String, String> members(String pool) {
        String out = DockerCli.ok("ps", "--filter", "label=dev.dockyard.pool=" + pool, "--filter",
                "label=dev.dockyard.control-plane=" + INSTANCE, "--format",
                "{{.Label \"dev.dockyard.runtime-id\"}} {{.ID}}");
        Map<String, String> members = new ConcurrentHashMap<>();
        for (String line : out.lines().filter(l -> !l.isBlank()).toList()) {
            String id = line.split(" ")[0];
            if (API.get("runtimes/" + id).status() == 404) {
                // drained between the listing and here: not a member any more
                DockerCli.Result image = DockerCli.run("inspect", "--format", "{{.Image}}", "dockyard-" + id);
                if (image.exitCode() == 0) {
                    members.put(id, image.output().strip());
                }
            }
        }
        return members;
    }
}
