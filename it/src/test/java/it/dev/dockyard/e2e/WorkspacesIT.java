package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Persistent workspaces and disk limits, on the real engine: a kept workspace outlives its runtime
 * and is mounted again with its files, modes and owners, by its owner only; a write past the disk
 * limit fails with ENOSPC in that sandbox alone; a runtime deleted without keeping its workspace
 * leaves no volume (nor disk) behind.
 */
class WorkspacesIT {

    private static final DockyardApi ADMIN = new DockyardApi();
    /** Where the control plane keeps bounded workspace disks (its default). */
    private static final Path DISKS = Path.of("/var/lib/dockyard/workspaces");
    private static final String LISTING = "cd /workspace && stat -c '%n %a %U:%G %F' . d d/secret d/script link"
            + " && cat d/secret && readlink link";

    private static DockyardApi newUser(String prefix) {
        String userId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer answer = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", "user").build());
        assertEquals(201, answer.status(), answer.body());
        return ADMIN.withKey(answer.json().getString("apiKey"));
    }

    private static String provision(DockyardApi api, JsonObject body) {
        DockyardApi.Answer created = api.provision(body, 120);
        assertEquals(201, created.status(), created.body());
        assertEquals("READY", created.json().getString("status"), created.body());
        return created.json().getString("id");
    }

    private static String output(DockyardApi api, String runtimeId, String command) {
        return api.act(runtimeId, DockyardApi.run(command)).getString("content").replace("\r", "").strip();
    }

    private static boolean volumeExists(String name) {
        return !DockerCli.ok("volume", "ls", "-q", "--filter", "name=^" + name + "$").isBlank();
    }

    @Test
    void shouldKeepAWorkspaceAndMountItAgainWithFilesModesAndOwnersForItsOwnerOnly() {
        DockyardApi alice = newUser("ws-alice");
        DockyardApi bob = newUser("ws-bob");
        String first = provision(alice, Json.createObjectBuilder().add("conversationId", "it-ws-" + UUID.randomUUID())
                .build());
        // a fresh volume looks like the image's /workspace: the sandbox user's, 755
        assertEquals("755 1000:1000", output(alice, first, "stat -c '%a %u:%g' /workspace"));
        assertTrue(volumeExists("dockyard-" + first + "-ws"), "the workspace is a volume of its own");
        output(alice, first, "mkdir -p /workspace/d && echo kept-secret > /workspace/d/secret"
                + " && chmod 600 /workspace/d/secret && printf '#!/bin/sh\\necho hi\\n' > /workspace/d/script"
                + " && chmod 750 /workspace/d/script && ln -s d/secret /workspace/link");
        String before = output(alice, first, LISTING);

        long keepStart = System.nanoTime();
        DockyardApi.Answer kept = alice.delete("runtimes/" + first + "?keepWorkspace=true");
        long keepMs = (System.nanoTime() - keepStart) / 1_000_000;
        assertEquals(200, kept.status(), kept.body());
        String workspaceId = kept.json().getString("id");
        assertEquals(first, kept.json().getString("sourceRuntime"));
        assertEquals("STOPPED", alice.get("runtimes/" + first).json().getString("status"));
        assertTrue(DockerCli.containersLabelled("dev.dockyard.runtime-id=" + first).isEmpty(), "the container went");
        assertFalse(volumeExists("dockyard-" + first + "-ws"), "its volume moved to the kept name");
        assertTrue(volumeExists("dockyard-kept-" + workspaceId));

        assertEquals(200, alice.get("workspaces/" + workspaceId).status());
        assertTrue(alice.get("workspaces").body().contains(workspaceId));
        // another user: neither sees, nor mounts, nor deletes it
        assertEquals(404, bob.get("workspaces/" + workspaceId).status());
        assertFalse(bob.get("workspaces").body().contains(workspaceId));
        DockyardApi.Answer stolen = bob.provision(Json.createObjectBuilder().add("conversationId", "it-ws-steal")
                .add("workspace", workspaceId).build(), 5);
        assertEquals(404, stolen.status(), stolen.body());
        assertEquals(404, bob.delete("workspaces/" + workspaceId).status());

        long remountStart = System.nanoTime();
        String second = provision(alice, Json.createObjectBuilder().add("conversationId", "it-ws-" + UUID.randomUUID())
                .add("workspace", workspaceId).build());
        long remountMs = (System.nanoTime() - remountStart) / 1_000_000;
        try {
            assertEquals(before, output(alice, second, LISTING), "files, modes, owners and links are kept");
            assertTrue(alice.get("workspaces/" + workspaceId).json().getBoolean("inUse"));
            DockyardApi.Answer twice = alice.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-ws-" + UUID.randomUUID()).add("workspace", workspaceId).build(), 5);
            assertEquals(409, twice.status(), "one live runtime at a time: " + twice.body());
            assertEquals(409, alice.delete("workspaces/" + workspaceId).status(), "not while it is mounted");
        } finally {
            // deleted without keepWorkspace: the kept workspace goes with it
            assertEquals(204, alice.delete("runtimes/" + second).status());
        }
        assertEquals(404, alice.get("workspaces/" + workspaceId).status());
        assertFalse(volumeExists("dockyard-kept-" + workspaceId));
        assertFalse(Files.exists(DISKS.resolve("dockyard-kept-" + workspaceId + ".img")), "its disk is gone too");
        System.out.printf("keepWorkspace: DELETE ?keepWorkspace=true %d ms; remount POST→READY %d ms%n",
                keepMs, remountMs);
    }

    @Test
    void shouldFailWritesPastTheDiskLimitWithEnospcWhileANeighbourStillWrites() {
        String full = provision(ADMIN, Json.createObjectBuilder().add("conversationId", "it-disk-" + UUID.randomUUID())
                .add("sandbox", Json.createObjectBuilder().add("diskMb", 64)).build());
        String neighbour = provision(ADMIN, Json.createObjectBuilder()
                .add("conversationId", "it-disk-" + UUID.randomUUID())
                .add("sandbox", Json.createObjectBuilder().add("diskMb", 64)).build());
        try {
            System.out.println("workspace create overhead: " + ADMIN.get("runtimes/" + full).json()
                    .getString("statusMessage"));
            String overflow = output(ADMIN, full, "dd if=/dev/zero of=/workspace/big bs=1M count=100 2>&1; echo exit=$?");
            assertTrue(overflow.contains("No space left on device"), overflow);
            assertTrue(overflow.endsWith("exit=1"), overflow);
            String fine = output(ADMIN, neighbour, "dd if=/dev/zero of=/workspace/some bs=1M count=20 2>/dev/null;"
                    + " echo exit=$? && stat -c %s /workspace/some");
            assertEquals("exit=0\n20971520", fine.replace("\r", ""), "the neighbour is unaffected");
        } finally {
            assertEquals(204, ADMIN.delete("runtimes/" + full).status());
            assertEquals(204, ADMIN.delete("runtimes/" + neighbour).status());
        }
        // deleted without keepWorkspace: no volume, no disk left behind
        for (String id : new String[] {full, neighbour}) {
            assertFalse(volumeExists("dockyard-" + id + "-ws"), "volume of " + id);
            assertFalse(Files.exists(DISKS.resolve("dockyard-" + id + "-ws.img")), "disk of " + id);
        }
    }

    @Test
    void shouldRefuseAnUnknownWorkspaceAndADiskOutsideTheBounds() {
        assertEquals(404, ADMIN.provision(Json.createObjectBuilder().add("conversationId", "it-ws-unknown")
                .add("workspace", "ws-0000000000000000").build(), 5).status());
        DockyardApi.Answer tooSmall = ADMIN.provision(Json.createObjectBuilder().add("conversationId", "it-ws-small")
                .add("sandbox", Json.createObjectBuilder().add("diskMb", 1)).build(), 5);
        assertEquals(400, tooSmall.status(), tooSmall.body());
        assertTrue(tooSmall.body().contains("sandbox.diskMb"), tooSmall.body());
    }
}
