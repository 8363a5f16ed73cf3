package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Snapshots and forks on the real engine: a fork of a runtime with a 100 MB workspace sees the
 * same files (inside and outside the workspace: its home, a volume of its own on the default
 * read-only root, but not /tmp, a tmpfs, as after a reboot), and from then on the two are independent; the
 * snapshot is its owner's alone; deleting it removes its image and its workspace copy.
 */
class SnapshotsIT {

    private static final DockyardApi ADMIN = new DockyardApi();

    private static DockyardApi newUser(String prefix) {
        String userId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer answer = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", "user").build());
        assertEquals(201, answer.status(), answer.body());
        return ADMIN.withKey(answer.json().getString("apiKey"));
    }

    private static String output(DockyardApi api, String runtimeId, String command) {
        return api.act(runtimeId, DockyardApi.run(command)).getString("content").replace("\r", "").strip();
    }

    /**
     * Issue 26: the snapshot's image (alice's home and files) is hers alone: bob can neither run it by
     * name, by whole id nor by an id prefix, through /api/v1 or the Remote Runtime API, nor learn it
     * exists; a 2-hex id prefix names nothing, whoever asks.
     */
    private static void assertSnapshotImageIsAlicesAlone(DockyardApi alice, DockyardApi bob, String snapshotId) {
        String image = "dockyard/snapshot:" + snapshotId;
        String id = DockerCli.inspect(image, "{{.Id}}").strip();
        assertEquals(alice.get("users/me").json().getString("userId"),
                DockerCli.inspect(image, "{{index .Config.Labels \"dev.dockyard.owner\"}}").strip(),
                "the image is labelled with its owner");
        for (String name : List.of(image, id, id.substring("sha256:".length(), "sha256:".length() + 2),
                id.substring("sha256:".length(), "sha256:".length() + 12))) {
            DockyardApi.Answer refused = bob.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-snap-image-" + UUID.randomUUID())
                    .add("sandbox", Json.createObjectBuilder().add("image", name)).build(), 5);
            assertEquals(404, refused.status(), name + ": " + refused.body());
            assertTrue(refused.contentType().startsWith("application/problem+json"), refused.body());
            assertFalse(refused.body().contains("\"id\""), "no runtime recorded: " + refused.body());
        }
        RuntimeApi bobsRuntimes = new RuntimeApi(bob.key());
        for (String name : List.of(image, id.substring("sha256:".length(), "sha256:".length() + 2))) {
            DockyardApi.Answer exists = bobsRuntimes.get("/image_exists?image=" + RuntimeApi.encode(name));
            assertEquals(200, exists.status(), exists.body());
            assertFalse(exists.json().getBoolean("exists"), name + ": " + exists.body());
            DockyardApi.Answer start = bobsRuntimes.start(Json.createObjectBuilder().add("image", name)
                    .add("session_id", "it-snap-image-" + UUID.randomUUID().toString().substring(0, 8))
                    .add("command", "sleep 600").build());
            assertEquals(400, start.status(), name + ": " + start.body());
            assertTrue(RuntimeApi.detail(start).contains("not found"), start.body());
        }
        RuntimeApi alicesRuntimes = new RuntimeApi(alice.key());
        assertTrue(alicesRuntimes.get("/image_exists?image=" + RuntimeApi.encode(image)).json().getBoolean("exists"),
                "the owner sees her snapshot's image");
        assertFalse(alicesRuntimes.get("/image_exists?image=" + RuntimeApi.encode(id.substring(7, 9))).json()
                .getBoolean("exists"), "an id prefix names nothing, even for the owner");
    }

    @Test
    void shouldForkARuntimeIntoAnIndependentIdenticalOneAndKeepSnapshotsToTheirOwner() {
        DockyardApi alice = newUser("snap-alice");
        DockyardApi bob = newUser("snap-bob");
        DockyardApi.Answer created = alice.provision(Json.createObjectBuilder()
                .add("conversationId", "it-snap-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        String original = created.json().getString("id");
        String fork = null;
        String snapshotId = null;
        try {
            assertEquals("true", DockerCli.inspect("dockyard-" + original, "{{.HostConfig.ReadonlyRootfs}}"),
                    "the default: a read-only root");
            String sums = output(alice, original, "head -c 100000000 /dev/urandom > /workspace/big.bin"
                    + " && echo outside > ~/outside.txt && echo shared > /workspace/shared.txt"
                    + " && echo scratch > /tmp/scratch.txt"
                    + " && sha256sum /workspace/big.bin | cut -c1-64");

            long snapStart = System.nanoTime();
            DockyardApi.Answer snap = alice.post("runtimes/" + original + "/snapshots",
                    Json.createObjectBuilder().add("name", "before-refactor").build());
            long snapMs = (System.nanoTime() - snapStart) / 1_000_000;
            assertEquals(201, snap.status(), snap.body());
            JsonObject snapshot = snap.json();
            snapshotId = snapshot.getString("id");
            assertEquals("before-refactor", snapshot.getString("name"));
            assertEquals(original, snapshot.getString("runtimeId"));
            assertTrue(snapshot.getJsonNumber("sizeBytes").longValue() >= 100_000_000L, snap.body());
            assertTrue(alice.get("snapshots").body().contains(snapshotId));
            assertEquals("READY", alice.get("runtimes/" + original).json().getString("status"), "thawed after");
            assertEquals("ok", output(alice, original, "echo ok"));
            // another user: neither sees it nor starts from it
            assertEquals(404, bob.get("snapshots/" + snapshotId).status());
            assertFalse(bob.get("snapshots").body().contains(snapshotId));
            assertEquals(404, bob.provision(Json.createObjectBuilder().add("conversationId", "it-snap-steal")
                    .add("fromSnapshot", snapshotId).build(), 5).status());
            assertEquals(404, bob.delete("snapshots/" + snapshotId).status());
            assertEquals(404, bob.post("runtimes/" + original + "/fork",
                    Json.createObjectBuilder().add("conversationId", "it-snap-steal").build()).status());
            assertSnapshotImageIsAlicesAlone(alice, bob, snapshotId);

            long forkStart = System.nanoTime();
            DockyardApi.Answer forked = alice.post("runtimes/" + original + "/fork", Json.createObjectBuilder()
                    .add("conversationId", "it-fork-" + UUID.randomUUID()).build().toString(), "wait=120");
            long forkMs = (System.nanoTime() - forkStart) / 1_000_000;
            assertEquals(201, forked.status(), forked.body());
            fork = forked.json().getString("id");
            assertNotEquals(original, fork);
            assertEquals("READY", forked.json().getString("status"));

            assertEquals(sums + "\noutside\nshared", output(alice, fork,
                    "sha256sum /workspace/big.bin | cut -c1-64 && cat ~/outside.txt /workspace/shared.txt"),
                    "the fork sees the workspace and the file system outside it");
            assertEquals("no", output(alice, fork, "test -e /tmp/scratch.txt && echo yes || echo no"));
            assertEquals("scratch", output(alice, original, "cat /tmp/scratch.txt"));
            output(alice, fork, "echo from-fork > /workspace/shared.txt && touch /workspace/only-fork");
            output(alice, original, "touch /workspace/only-original");
            assertEquals("shared\nno", output(alice, original,
                    "cat /workspace/shared.txt; test -e /workspace/only-fork && echo yes || echo no"));
            assertEquals("from-fork\nno", output(alice, fork,
                    "cat /workspace/shared.txt; test -e /workspace/only-original && echo yes || echo no"));
            // the snapshot and the fork's own count against alice's quota, set to two here
            String aliceId = alice.get("users/me").json().getString("userId");
            assertEquals(200, ADMIN.put("users/" + aliceId + "/quota", Json.createObjectBuilder()
                    .add("maxSnapshots", 2).build()).status());
            DockyardApi.Answer over = alice.post("runtimes/" + original + "/snapshots",
                    Json.createObjectBuilder().add("name", "one-too-many").build());
            assertEquals(429, over.status(), over.body());
            assertTrue(over.json().getString("type").endsWith("/quota-exceeded"), over.body());
            assertEquals("maxSnapshots", over.json().getString("limit"));
            System.out.printf("snapshot of a 100 MB workspace: %d ms, %d bytes (%s); fork POST→READY: %d ms (%s)%n",
                    snapMs, snapshot.getJsonNumber("sizeBytes").longValue(), snapshotId, forkMs,
                    forked.json().getString("statusMessage"));
        } finally {
            if (fork != null) {
                assertEquals(204, alice.delete("runtimes/" + fork).status());
            }
            assertEquals(204, alice.delete("runtimes/" + original).status());
        }
        // snapshots outlive the runtimes until deleted (the fork's own one too); then their images and volumes go
        assertEquals(200, alice.get("snapshots/" + snapshotId).status());
        List<String> owned = alice.get("snapshots").json().getJsonArray("snapshots").stream()
                .map(v -> v.asJsonObject().getString("id")).toList();
        assertEquals(2, owned.size(), "the snapshot taken and the fork's: " + owned);
        for (String id : owned) {
            assertEquals(204, alice.delete("snapshots/" + id).status());
            assertEquals(404, alice.get("snapshots/" + id).status());
            assertNotEquals(0, DockerCli.run("image", "inspect", "dockyard/snapshot:" + id).exitCode(),
                    "the snapshot's image is gone");
            assertTrue(DockerCli.ok("volume", "ls", "-q", "--filter", "name=dockyard-snapshot-" + id).isBlank(),
                    "the snapshot's workspace copy is gone");
        }
        assertTrue(DockerCli.ok("volume", "ls", "-q", "--filter", "name=dockyard-" + fork + "-ws").isBlank(),
                "the fork's workspace went with it");
    }

    /**
     * A control plane killed during a capture (the soak, 2026-11-30: a kill -9 while a snapshot was
     * copied on node2) leaves the snapshot's image and workspace copy, which nobody will record, and
     * the copier still mounting the runtime's workspace, so that neither could ever be removed. The
     * reconciler removes what a dead process captured and the copier it left, and keeps what a live
     * process is still capturing, and every recorded snapshot, while the runtime lives on.
     */
    @Test
    void shouldSweepWhatACaptureLeftWhenItsControlPlaneDied() {
        DockyardApi alice = newUser("snap-killed");
        DockyardApi.Answer created = alice.provision(Json.createObjectBuilder()
                .add("conversationId", "it-snap-killed-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        String runtime = created.json().getString("id");
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String dead = "snap-dead" + run;
        String underWay = "snap-underway" + run;
        String copier = "it-copier-" + run;
        try {
            DockyardApi.Answer snap = alice.post("runtimes/" + runtime + "/snapshots",
                    Json.createObjectBuilder().add("name", "recorded").build());
            assertEquals(201, snap.status(), snap.body());
            String recorded = snap.json().getString("id");
            String image = "dockyard/snapshot:" + recorded;
            String live = DockerCli.inspect(image, "{{index .Config.Labels \"dev.dockyard.captured-by\"}}").strip();
            assertTrue(live.startsWith(System.getProperty("dockyard.instance", "it") + "#"),
                    "the capture names the process that made it: " + live);
            String sandboxImage = DockerCli.inspect("dockyard-" + runtime, "{{.Config.Image}}").strip();
            String workspace = "dockyard-" + runtime + "-ws";
            String instance = System.getProperty("dockyard.instance", "it");
            // what a capture by a process that is gone left: its copy, its copier (ended), its image
            List<String> deadLabels = captureLabels(runtime, dead, instance, "it#gone" + run);
            DockerCli.ok(concat(List.of("volume", "create"), deadLabels, List.of("dockyard-snapshot-" + dead)));
            DockerCli.ok(concat(List.of("create", "--name", copier, "--network", "none", "--user", "0",
                    "--entrypoint", "cp", "--label", "dev.dockyard.managed=true",
                    "--label", "dev.dockyard.runtime-id=" + runtime, "--label", "dev.dockyard.workspace=copy",
                    "--label", "dev.dockyard.copier-of=" + instance,
                    "-v", workspace + ":/from:ro", "-v", "dockyard-snapshot-" + dead + ":/to"),
                    List.of(sandboxImage, "-a", "/from/.", "/to/")));
            DockerCli.ok("start", "-a", copier);
            List<String> changes = new ArrayList<>(List.of("commit"));
            for (int i = 0; i < deadLabels.size(); i += 2) {
                changes.addAll(List.of("--change", "LABEL " + deadLabels.get(i + 1)));
            }
            changes.addAll(List.of(copier, "dockyard/snapshot:" + dead));
            DockerCli.ok(changes.toArray(String[]::new));
            // and what the live server is capturing right now: the same, under its own process
            DockerCli.ok(concat(List.of("volume", "create"), captureLabels(runtime, underWay, instance, live),
                    List.of("dockyard-snapshot-" + underWay)));

            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while ((exists("container", copier) || exists("volume", "dockyard-snapshot-" + dead)
                    || exists("image", "dockyard/snapshot:" + dead)) && System.nanoTime() < deadline) {
                sleep(2000);
            }
            assertFalse(exists("container", copier), "the copier left behind is removed");
            assertFalse(exists("image", "dockyard/snapshot:" + dead), "the unrecorded capture's image is removed");
            assertFalse(exists("volume", "dockyard-snapshot-" + dead), "and its workspace copy");
            assertTrue(exists("volume", "dockyard-snapshot-" + underWay), "a live process's capture stays");
            assertTrue(exists("image", image), "a recorded snapshot stays");
            assertTrue(exists("volume", "dockyard-snapshot-" + recorded), "with its workspace copy");
            assertEquals("ok", output(alice, runtime, "echo ok"), "the runtime is untouched");
            assertEquals(204, alice.delete("snapshots/" + recorded).status());
        } finally {
            DockerCli.run("rm", "-f", copier);
            DockerCli.run("rmi", "dockyard/snapshot:" + dead);
            DockerCli.run("volume", "rm", "dockyard-snapshot-" + dead);
            DockerCli.run("volume", "rm", "dockyard-snapshot-" + underWay);
            assertEquals(204, alice.delete("runtimes/" + runtime).status());
        }
    }

    /**
     * A fork into a conversation that has a live runtime already (the soak, 2026-11-30: a fork's
     * retry after its first had registered the runtime) is a 409 naming that runtime, as a
     * provision's is, not a 500; and the snapshot made for it is not left behind. A fork with an
     * Idempotency-Key is carried out once, as a provision is.
     */
    @Test
    void shouldRefuseAForkIntoABusyConversationWith409AndKeepNoSnapshotForIt() {
        DockyardApi carol = newUser("snap-busy");
        String busy = "it-snap-busy-" + UUID.randomUUID();
        DockyardApi.Answer first = carol.provision(Json.createObjectBuilder().add("conversationId", busy).build(), 120);
        assertEquals(201, first.status(), first.body());
        String occupant = first.json().getString("id");
        DockyardApi.Answer source = carol.provision(Json.createObjectBuilder()
                .add("conversationId", "it-snap-src-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, source.status(), source.body());
        String sourceId = source.json().getString("id");
        String forkId = null;
        try {
            DockyardApi.Answer forked = carol.post("runtimes/" + sourceId + "/fork",
                    Json.createObjectBuilder().add("conversationId", busy).build());
            assertEquals(409, forked.status(), forked.body());
            assertTrue(forked.contentType().startsWith("application/problem+json"), forked.body());
            assertEquals(occupant, forked.json().getJsonObject("runtime").getString("id"), forked.body());
            assertEquals(0, carol.get("snapshots").json().getJsonArray("snapshots").size(),
                    "no snapshot left of a refused fork");

            // with an Idempotency-Key, a retry gets the first answer: no second snapshot, no 409
            String key = "it-fork-" + UUID.randomUUID();
            JsonObject body = Json.createObjectBuilder().add("conversationId", "it-snap-fork-" + UUID.randomUUID())
                    .build();
            DockyardApi.Answer once = carol.postIdempotent("runtimes/" + sourceId + "/fork", body, key);
            assertEquals(202, once.status(), once.body());
            forkId = once.json().getString("id");
            DockyardApi.Answer again = carol.postIdempotent("runtimes/" + sourceId + "/fork", body, key);
            assertEquals(202, again.status(), again.body());
            assertEquals(forkId, again.json().getString("id"));
            assertEquals("true", again.raw().headers().firstValue("Idempotent-Replayed").orElse(""));
            assertEquals(1, carol.get("snapshots").json().getJsonArray("snapshots").size(), "one fork, one snapshot");
        } finally {
            if (forkId != null) {
                assertEquals(204, carol.delete("runtimes/" + forkId).status());
            }
            assertEquals(204, carol.delete("runtimes/" + sourceId).status());
            assertEquals(204, carol.delete("runtimes/" + occupant).status());
        }
        for (var snapshot : carol.get("snapshots").json().getJsonArray("snapshots")) {
            // the fork's container may still be going, its image with it: a 409 until it is gone
            String path = "snapshots/" + snapshot.asJsonObject().getString("id");
            int status = carol.delete(path).status();
            for (int tries = 0; status == 409 && tries < 30; tries++) {
                sleep(1000);
                status = carol.delete(path).status();
            }
            assertEquals(204, status);
        }
    }

    /** The labels Dockyard puts on a snapshot's parts, as {@code --label} arguments. */
    private static List<String> captureLabels(String runtime, String snapshot, String instance, String process) {
        List<String> labels = new ArrayList<>();
        for (String label : List.of("dev.dockyard.managed=true", "dev.dockyard.runtime-id=" + runtime,
                "dev.dockyard.conversation-id=it-snap-killed", "dev.dockyard.control-plane=" + instance,
                "dev.dockyard.workspace=true", "dev.dockyard.snapshot-id=" + snapshot,
                "dev.dockyard.captured-by=" + process,
                // made a minute ago: past the reconciler's grace, far from the longest capture
                "dev.dockyard.created-at=" + (System.currentTimeMillis() - 60_000))) {
            labels.addAll(List.of("--label", label));
        }
        return labels;
    }

    @SafeVarargs
    private static String[] concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all.toArray(String[]::new);
    }

    private static boolean exists(String kind, String name) {
        return DockerCli.run(kind, "inspect", name).exitCode() == 0;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
