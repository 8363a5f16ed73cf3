package dev.dockyard.application.workspaces;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.Refused;
import dev.dockyard.backend.SandboxWorkspace;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How a provision's "workspace" and "fromSnapshot" are resolved for their caller. */
class WorkspacesTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private final Map<String, KeptWorkspace> kept = new HashMap<>();
    private final Map<String, Snapshot> snapshots = new HashMap<>();
    private final List<String> attached = new ArrayList<>();
    private final Workspaces workspaces = new Workspaces();
    private final Snapshots snapshotService = new Snapshots();
    private boolean inUse;

    @BeforeEach
    void wire() {
        WorkspaceRecords records = new WorkspaceRecords() {
            @Override
            public Optional<ClaimRefusal> claim(String id, String userId, String claim, Instant now) {
                KeptWorkspace w = kept.get(id);
                if (w == null || !w.userId().equals(userId)) {
                    return Optional.of(ClaimRefusal.NOT_FOUND);
                }
                if (inUse) {
                    return Optional.of(ClaimRefusal.IN_USE);
                }
                w.attach(claim, now);
                return Optional.empty();
            }

            @Override
            public Optional<KeptWorkspace> workspace(String id) {
                return Optional.ofNullable(kept.get(id));
            }

            @Override
            public void attach(String id, String expected, String runtimeId, Instant now) {
                attached.add(id + " " + expected.startsWith(KeptWorkspace.CLAIM_PREFIX) + " " + runtimeId);
            }

            @Override
            public Optional<Snapshot> snapshot(String id) {
                return Optional.ofNullable(snapshots.get(id));
            }
        };
        workspaces.records = records;
        workspaces.clock = new MutableClock(NOW);
        snapshotService.records = records;
        kept.put("ws-a", new KeptWorkspace("ws-a", "alice", "dockyard-kept-ws-a", "node2", "rt-1", NOW));
        snapshots.put("snap-a", new Snapshot("snap-a", "alice", "s", "rt-1", "node2", "dockyard/snapshot:snap-a",
                "dockyard-snapshot-snap-a", 1, 2048, NOW));
    }

    private static ProvisioningRequest request(String userId, WorkspaceRequest workspace) {
        return new ProvisioningRequest(userId, Role.USER, "conv", new AgentProfile("CodeActAgent",
                new LlmSettings(null, null, null), null, null, List.of()), new LlmSettings(null, null, null), "img", 1,
                512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null, false, null)
                .withWorkspace(workspace, null);
    }

    @Test
    void shouldMountTheOwnersKeptWorkspaceOnItsNodeAndRecordWhoHoldsIt() {
        Workspaces.Resolved resolved = workspaces.resolve(request("alice", WorkspaceRequest.of(0, "ws-a", null)),
                snapshotService);
        assertEquals(SandboxWorkspace.mount("dockyard-kept-ws-a"), resolved.request().workspace().sandboxWorkspace());
        assertEquals("node2", resolved.request().workspace().node());
        assertEquals("img", resolved.request().image());
        assertTrue(resolved.claim().startsWith(KeptWorkspace.CLAIM_PREFIX));
        workspaces.claimed(resolved, "rt-2");
        assertEquals(List.of("ws-a true rt-2"), attached);
    }

    @Test
    void shouldAnswerAnotherUsersWorkspaceOrSnapshotAsNotFound() {
        Refused workspace = assertThrows(Refused.class, () -> workspaces.resolve(
                request("bob", WorkspaceRequest.of(0, "ws-a", null)), snapshotService));
        assertEquals(Refused.Reason.NOT_FOUND, workspace.reason());
        Refused snapshot = assertThrows(Refused.class, () -> workspaces.resolve(
                request("bob", WorkspaceRequest.of(0, null, "snap-a")), snapshotService));
        assertEquals(Refused.Reason.NOT_FOUND, snapshot.reason());
    }

    @Test
    void shouldRefuseAWorkspaceALiveRuntimeMountsAsAConflict() {
        inUse = true;
        Refused refused = assertThrows(Refused.class, () -> workspaces.resolve(
                request("alice", WorkspaceRequest.of(0, "ws-a", null)), snapshotService));
        assertEquals(Refused.Reason.CONFLICT, refused.reason());
    }

    @Test
    void shouldStartFromTheOwnersSnapshotWithItsImageAndACopyOfItsWorkspace() {
        Workspaces.Resolved resolved = workspaces.resolve(request("alice", WorkspaceRequest.of(0, null, "snap-a")),
                snapshotService);
        assertEquals("dockyard/snapshot:snap-a", resolved.request().image());
        assertEquals(SandboxWorkspace.copyOf("dockyard-snapshot-snap-a", 2048),
                resolved.request().workspace().sandboxWorkspace());
        assertEquals("node2", resolved.request().workspace().node());
        assertNull(resolved.claim());
    }
}
