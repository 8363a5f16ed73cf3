package dev.dockyard.application.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.workspace.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** E2B's snapshot list over Dockyard's snapshots: the caller's, of a sandbox, of a name, newest first, paged. */
class E2bSnapshotsTest {

    private final List<Snapshot> stored = new ArrayList<>();
    private final List<String> captured = new ArrayList<>();
    private final E2bSnapshots snapshots = new E2bSnapshots();

    {
        snapshots.snapshots = new Snapshots() {
            @Override
            public List<Snapshot> list(String userId, boolean admin) {
                return stored.stream().filter(s -> admin || s.userId().equals(userId)).toList();
            }

            @Override
            public Snapshot capture(SandboxRuntime runtime, String name) {
                captured.add(name);
                return null;
            }
        };
    }

    private void snapshot(String id, String user, String runtimeId, String name, int second) {
        stored.add(new Snapshot(id, user, name, runtimeId, "local", "img", "vol", 1, 0,
                Instant.parse("2026-01-01T00:00:00Z").plusSeconds(second)));
    }

    private static List<String> ids(Page<Snapshot> page) {
        return page.items().stream().map(Snapshot::id).toList();
    }

    @Test
    void shouldListTheCallersSnapshotsOfASandboxAndANameNewestFirst() {
        snapshot("snap-00000001", "alice", "rt-0123456789abcdef", "a", 1);
        snapshot("snap-00000002", "alice", "rt-0123456789abcdef", "b", 2);
        snapshot("snap-00000003", "alice", "rt-1111111111111111", "a", 3);
        snapshot("snap-00000004", "bob", "rt-2222222222222222", "a", 4);

        assertEquals(List.of("snap-00000003", "snap-00000002", "snap-00000001"),
                ids(snapshots.list("alice", false, null, null, 100, null)));
        assertEquals(List.of("snap-00000002", "snap-00000001"),
                ids(snapshots.list("alice", false, "rt0123456789abcdef", null, 100, null)), "of one sandbox");
        assertEquals(List.of("snap-00000003", "snap-00000001"), ids(snapshots.list("alice", false, null, "a", 100,
                null)));
        assertEquals(List.of(), ids(snapshots.list("alice", false, "not-a-sandbox", null, 100, null)));
        assertEquals(4, snapshots.list("root", true, null, null, 100, null).items().size(), "an admin's: all");
    }

    @Test
    void shouldPageUntilTheLastPageWhichHasNoToken() {
        for (int i = 1; i <= 3; i++) {
            snapshot("snap-0000000" + i, "alice", "rt-0123456789abcdef", "s", i);
        }
        Page<Snapshot> first = snapshots.list("alice", false, null, null, 2, null);
        Page<Snapshot> second = snapshots.list("alice", false, null, null, 2, first.next());

        assertEquals(List.of("snap-00000003", "snap-00000002"), ids(first));
        assertEquals(List.of("snap-00000001"), ids(second));
        assertNull(second.next());
    }

    @Test
    void shouldNameAnUnnamedSnapshotAfterItsSandbox() {
        SandboxRuntime runtime = new SandboxRuntime("c", "alice", "fake", "img", 1, 512, 60, Instant.EPOCH);
        snapshots.capture(runtime, null);
        snapshots.capture(runtime, "mine");
        assertEquals(List.of(SandboxIds.sandboxId(runtime.id()), "mine"), captured);
    }
}
