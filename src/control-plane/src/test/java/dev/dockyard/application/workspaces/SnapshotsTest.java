package dev.dockyard.application.workspaces;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.application.Refused;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
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

/** What a snapshot is refused for before anything is frozen or copied. */
class SnapshotsTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private final List<Snapshot> owned = new ArrayList<>();
    private final Snapshots snapshots = new Snapshots();
    private final Map<String, UserAccount> accounts = new HashMap<>();
    private final SandboxRuntime runtime = new SandboxRuntime("conv", "alice", "fake", "img", 1.0, 512, 60, NOW);

    @BeforeEach
    void wire() {
        snapshots.records = new WorkspaceRecords() {
            @Override
            public List<Snapshot> snapshots(String userId) {
                return owned.stream().filter(s -> s.userId().equals(userId)).toList();
            }
        };
        snapshots.accounts = new Accounts() {
            @Override
            public Optional<UserAccount> find(String userId) {
                return Optional.ofNullable(accounts.get(userId));
            }
        };
        snapshots.config = new TestConfig() {
            @Override
            public int quotaMaxSnapshots() {
                return 2;
            }

            @Override
            public int quotaMaxSnapshotMb() {
                return 100;
            }
        };
    }

    private void owns(String userId, long megabytes) {
        owned.add(new Snapshot("snap-" + owned.size(), userId, "s", "rt-x", "local", "img", "vol",
                megabytes * 1024 * 1024, 0, NOW));
    }

    @Test
    void shouldRefuseASnapshotOverTheUsersCountWith429Members() {
        owns("alice", 1);
        owns("alice", 1);
        owns("bob", 1);
        Refused refused = assertThrows(Refused.class, () -> snapshots.capture(runtime, "third"));
        assertEquals(Refused.Reason.QUOTA_EXCEEDED, refused.reason());
        assertEquals("\"maxSnapshots\"", refused.members().get("limit").toString());
        assertEquals("2", refused.members().get("allowed").toString());
        assertEquals("2", refused.members().get("inUse").toString());
    }

    @Test
    void shouldRefuseASnapshotOnceTheUsersSizeIsSpent() {
        owns("alice", 100);
        Refused refused = assertThrows(Refused.class, () -> snapshots.capture(runtime, "more"));
        assertEquals(Refused.Reason.QUOTA_EXCEEDED, refused.reason());
        assertEquals("\"maxSnapshotMb\"", refused.members().get("limit").toString());
    }

    @Test
    void shouldRefuseABadNameAsAValidationProblem() {
        for (String name : new String[] {null, " ", "a\nb", "x".repeat(201)}) {
            Refused refused = assertThrows(Refused.class, () -> snapshots.capture(runtime, name));
            assertEquals(Refused.Reason.VALIDATION, refused.reason());
        }
    }

    @Test
    void shouldApplyTheUsersOwnSnapshotLimitOverTheDefault() {
        UserAccount alice = new UserAccount("alice", Role.USER, NOW);
        alice.snapshotQuota(1, null);
        accounts.put("alice", alice);
        owns("alice", 1);
        Refused refused = assertThrows(Refused.class, () -> snapshots.capture(runtime, "second"));
        assertEquals("1", refused.members().get("allowed").toString());
    }
}
