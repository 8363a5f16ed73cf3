package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * kill -9 of the control plane while ten runtimes are being provisioned, then a restart: the
 * reconciler must bring the database and Docker back into agreement, leaking nothing. On the
 * disposable control plane: the shared one never goes down.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class KillNineIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String INSTANCE_LABEL = "dev.dockyard.control-plane=" + DisposableControlPlane.INSTANCE;

    @Test
    void shouldLeaveNoSandboxWithoutRuntimeNorRuntimeWithoutSandboxAfterKillNine() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String conversation = "it-kill-" + run + "-" + i;
            posts.add(CompletableFuture.supplyAsync(() -> API.post("runtimes",
                    Json.createObjectBuilder().add("conversationId", conversation).build())));
        }
        Set<String> ids = new HashSet<>();
        for (CompletableFuture<DockyardApi.Answer> post : posts) {
            DockyardApi.Answer answer = post.get();
            assertEquals(202, answer.status(), answer.body());
            ids.add(answer.json().getString("id"));
        }
        // kill once some sandboxes exist and the rest are still on their way
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> sandboxesOf(ids).size() >= 3);
        DisposableControlPlane.server().killNine();
        int labelledAtKill = sandboxesOf(ids).size();
        assertTrue(labelledAtKill >= 3, "sandboxes at the kill: " + labelledAtKill);
        long restartedAt = System.nanoTime();
        DisposableControlPlane.server().start();
        // the reconciler's time counts from when the restarted server answers: its own boot (50 s seen
        // on a loaded CI machine) is Liberty's, and is printed beside it
        long upAt = System.nanoTime();

        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            Set<String> live = liveOf(ids);
            return sandboxesOf(ids).equals(live) && ids.stream().noneMatch(this::isStarting);
        });
        long seconds = (System.nanoTime() - upAt) / 1_000_000_000;
        System.out.println("kill -9 during 10 provisions: " + labelledAtKill + " sandboxes at the kill; "
                + "reconciled " + seconds + " s after the restarted server answered (its boot took "
                + (upAt - restartedAt) / 1_000_000_000 + " s); live now: " + liveOf(ids).size());
        assertTrue(seconds <= 60);

        for (String id : ids) {
            API.delete("runtimes/" + id);
        }
        assertEquals(Set.of(), sandboxesOf(ids));
    }

    private boolean isStarting(String id) {
        String status = API.get("runtimes/" + id).json().getString("status");
        return status.equals("STARTING_RUNTIME") || status.equals("RUNTIME_STARTED") || status.equals("BUILDING_RUNTIME");
    }

    private static Set<String> liveOf(Set<String> ids) {
        return ids.stream().filter(id -> {
            String status = API.get("runtimes/" + id).json().getString("status");
            return !status.equals("ERROR") && !status.equals("STOPPED");
        }).collect(Collectors.toSet());
    }

    private static Set<String> sandboxesOf(Set<String> ids) {
        String out = DockerCli.ok("ps", "-a", "--filter", "label=" + INSTANCE_LABEL, "--format",
                "{{.Label \"dev.dockyard.runtime-id\"}}");
        return out.lines().filter(ids::contains).collect(Collectors.toSet());
    }
}
