package dev.dockyard.application.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.application.idempotency.IdempotencyKeys;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.application.workspaces.Workspaces;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.credentials.CredentialProvider;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.credentials.StoredCredential;
import dev.dockyard.fakes.FakeCredentialStore;
import dev.dockyard.fakes.FakeImages;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A deleted user's kept records go, another user's stay: an id given again starts with nothing. */
class UserRecordsTest {

    private final List<String> steps = new ArrayList<>();
    private final List<KeptWorkspace> kept = new ArrayList<>();
    private final List<Snapshot> snapshots = new ArrayList<>();
    private final FakeCredentialStore store = new FakeCredentialStore();
    /** Workspaces whose volume the node will not remove now. */
    private final Set<String> stuck = Set.of("ws-stuck");
    private final UserRecords records = new UserRecords();

    @BeforeEach
    void wire() {
        records.workspaces = new Workspaces() {
            @Override
            public List<KeptWorkspace> list(String userId, boolean admin) {
                return kept.stream().filter(w -> admin || w.userId().equals(userId)).toList();
            }

            @Override
            public void delete(String id, String userId, boolean admin) {
                if (stuck.contains(id)) {
                    throw new Refused(Refused.Reason.CONFLICT, "Workspace " + id + " cannot be removed now");
                }
                steps.add("remove workspace " + id);
                kept.removeIf(w -> w.id().equals(id));
            }
        };
        records.snapshots = new Snapshots() {
            @Override
            public List<Snapshot> list(String userId, boolean admin) {
                return snapshots.stream().filter(s -> admin || s.userId().equals(userId)).toList();
            }

            @Override
            public void delete(String id, String userId, boolean admin) {
                steps.add("remove snapshot " + id);
                snapshots.removeIf(s -> s.id().equals(id));
            }
        };
        records.records = new WorkspaceRecords() {
            @Override
            public void forget(String id) {
                steps.add("forget workspace " + id);
                kept.removeIf(w -> w.id().equals(id));
            }
        };
        records.credentials = new Credentials(store, List.<CredentialProvider>of(), Duration.ofMinutes(5),
                Clock.systemUTC());
        records.idempotencyKeys = new IdempotencyKeys() {
            @Override
            public int forgetUser(String userId) {
                steps.add("forget idempotency keys of " + userId);
                return 0;
            }
        };
        records.journal = new ProvisioningJournal() {
            @Override
            public int forgetEnded(String userId) {
                steps.add("forget ended runtimes of " + userId);
                return 0;
            }
        };
        records.nodes = new FakeNodes("local", "node2") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return new FakeImages() {
                    @Override
                    public int removeOwnedBy(String userId) {
                        steps.add("remove images of " + userId + " on " + node);
                        return 1;
                    }
                };
            }
        };
        kept.add(new KeptWorkspace("ws-alice", "alice", "vol-a", "local", "rt-1", Instant.EPOCH));
        kept.add(new KeptWorkspace("ws-stuck", "alice", "vol-s", "local", "rt-2", Instant.EPOCH));
        kept.add(new KeptWorkspace("ws-bob", "bob", "vol-b", "local", "rt-3", Instant.EPOCH));
        snapshots.add(new Snapshot("snap-alice", "alice", "before", "rt-1", "local", "img:a", "vol-sa", 1, 1,
                Instant.EPOCH));
        snapshots.add(new Snapshot("snap-bob", "bob", "before", "rt-3", "local", "img:b", "vol-sb", 1, 1,
                Instant.EPOCH));
        store.save(new StoredCredential("alice", "github", "secret"));
        store.save(new StoredCredential("alice", "openai", "secret"));
        store.save(new StoredCredential("bob", "github", "secret"));
    }

    @Test
    void shouldRemoveEverythingTheUserKeptAndNothingOfAnothers() {
        records.forget("alice");

        assertEquals(List.of("remove workspace ws-alice", "forget workspace ws-stuck", "remove snapshot snap-alice",
                "remove images of alice on local", "remove images of alice on node2",
                "forget idempotency keys of alice", "forget ended runtimes of alice"), steps);
        assertTrue(store.of("alice").isEmpty(), "a new alice finds no credentials");
        assertEquals(List.of("github"), store.of("bob").stream().map(StoredCredential::name).toList());
        assertEquals(List.of("ws-bob"), kept.stream().map(KeptWorkspace::id).toList());
        assertEquals(List.of("snap-bob"), snapshots.stream().map(Snapshot::id).toList());
    }
}
