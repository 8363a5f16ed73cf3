package dev.dockyard.application.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.KeyKind;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Deleting users and rotating keys: the order of the steps, and what is refused. */
class UserAdministrationTest {

    private final List<String> steps = new ArrayList<>();
    private final Map<String, UserAccount> users = new LinkedHashMap<>();
    private final List<SandboxRuntime> runtimes = new ArrayList<>();
    private Optional<String> bootstrapKey = Optional.of("bootstrap");
    private final UserAdministration administration = new UserAdministration();

    @BeforeEach
    void wire() {
        administration.accounts = new Accounts() {
            @Override
            public Optional<UserAccount> find(String userId) {
                return Optional.ofNullable(users.get(userId));
            }

            @Override
            public List<UserAccount> all() {
                return List.copyOf(users.values());
            }

            @Override
            public boolean revokeKeys(String userId) {
                steps.add("revoke " + userId);
                return users.containsKey(userId);
            }

            @Override
            public Optional<String> rotateKey(String userId, KeyKind kind) {
                return users.containsKey(userId) ? Optional.of(kind == KeyKind.E2B ? "e2b_new" : "dy_new")
                        : Optional.empty();
            }

            @Override
            public boolean delete(String userId) {
                steps.add("delete user " + userId);
                return users.remove(userId) != null;
            }

            @Override
            public Optional<String> create(String userId, Role role) {
                if (users.containsKey(userId)) {
                    return Optional.empty();
                }
                users.put(userId, new UserAccount(userId, role, Instant.EPOCH));
                return Optional.of("dy_first");
            }
        };
        administration.records = new UserRecords() {
            @Override
            public void forget(String userId) {
                steps.add("forget records of " + userId);
            }
        };
        administration.runtimes = new FakeRuntimes() {
            @Override
            public List<SandboxRuntime> list(String userId, String conversationId, RuntimeStatus status) {
                return runtimes.stream().filter(r -> r.userId().equals(userId)).toList();
            }
        };
        administration.lifecycle = new RuntimeService() {
            @Override
            public void delete(String id, boolean keepWorkspace) {
                steps.add("delete runtime " + id);
            }
        };
        administration.config = new DockyardConfig() {
            @Override
            public Optional<String> bootstrapAdminKey() {
                return bootstrapKey;
            }
        };
        users.put("root", new UserAccount("root", Role.ADMIN, Instant.EPOCH));
        users.put("alice", new UserAccount("alice", Role.USER, Instant.EPOCH));
    }

    @Test
    void shouldRevokeKeysThenDeleteLiveRuntimesThenTheUser() {
        SandboxRuntime live = new SandboxRuntime("conv", "alice", "fake", "img", 1.5, 512, 60, Instant.EPOCH);
        runtimes.add(live);

        assertEquals(1, administration.list().stream().filter(u -> u.account().userId().equals("alice"))
                .findFirst().orElseThrow().runtimes());
        administration.delete("root", "alice");

        assertEquals(List.of("revoke alice", "delete runtime " + live.id(), "forget records of alice",
                "delete user alice"), steps);
    }

    @Test
    void shouldRefuseDeletingYourselfAndUnknownUsers() {
        Refused self = assertThrows(Refused.class, () -> administration.delete("root", "root"));
        assertEquals(Refused.Reason.CONFLICT, self.reason());
        Refused unknown = assertThrows(Refused.class, () -> administration.delete("root", "nobody"));
        assertEquals(Refused.Reason.NOT_FOUND, unknown.reason());
        assertEquals(List.of(), steps);
    }

    @Test
    void shouldRefuseDeletingTheLastAdminWithoutABootstrapKey() {
        bootstrapKey = Optional.empty();
        Refused last = assertThrows(Refused.class, () -> administration.delete("alice", "root"));
        assertEquals(Refused.Reason.CONFLICT, last.reason());
        bootstrapKey = Optional.of("bootstrap");
        administration.delete("alice", "root");
        assertEquals(List.of("revoke root", "forget records of root", "delete user root"), steps);
    }

    @Test
    void shouldRotateOnlyKnownUsersKeys() {
        assertEquals("dy_new", administration.rotateKey("alice", KeyKind.DOCKYARD));
        assertEquals("e2b_new", administration.rotateKey("alice", KeyKind.E2B), "the kind asked for");
        assertEquals(Refused.Reason.NOT_FOUND,
                assertThrows(Refused.class, () -> administration.rotateKey("nobody", KeyKind.E2B)).reason());
    }

    @Test
    void shouldReserveTheRehearsalUsersIdsAndDeleteTheirLeftoversOnly() {
        Refused reserved = assertThrows(Refused.class, () -> administration.create(RehearsalUsers.PREFIX + "team",
                Role.USER));
        assertEquals(Refused.Reason.CONFLICT, reserved.reason());
        assertTrue(reserved.getMessage().contains("reserved for the start's rehearsal"), reserved.getMessage());

        RehearsalUsers rehearsals = new RehearsalUsers();
        rehearsals.accounts = administration.accounts;
        rehearsals.administration = administration;
        RehearsalUsers.Made made = rehearsals.make();
        assertTrue(RehearsalUsers.isRehearsals(made.userId()), made.userId());
        assertEquals("dy_first", made.key());
        // made at the epoch (the fake's clock): a leftover once older than the age, never before
        assertEquals(List.of(made.userId()), rehearsals.leftovers(Instant.EPOCH.plusSeconds(601),
                Duration.ofMinutes(10)));
        assertEquals(List.of(), rehearsals.leftovers(Instant.EPOCH.plusSeconds(599), Duration.ofMinutes(10)));
        // an admin's user named almost so is nobody's leftover, however old
        users.put(RehearsalUsers.PREFIX + "old", new UserAccount(RehearsalUsers.PREFIX + "old", Role.USER, Instant.EPOCH));
        assertEquals(List.of(made.userId()), rehearsals.leftovers(Instant.EPOCH.plusSeconds(3600),
                Duration.ofMinutes(10)));

        rehearsals.delete(made.userId());
        assertEquals(List.of("revoke " + made.userId(), "forget records of " + made.userId(),
                "delete user " + made.userId()), steps);
        // deleted meanwhile by another control plane's start: done, not an error
        rehearsals.delete(made.userId());
    }

    @Test
    void shouldRefuseCreatingAnExistingUserAndPointToTheKeyRotation() {
        assertEquals("dy_first", administration.create("carol", Role.USER));

        Refused again = assertThrows(Refused.class, () -> administration.create("alice", Role.ADMIN));

        assertEquals(Refused.Reason.CONFLICT, again.reason());
        assertTrue(again.getMessage().contains("POST /api/v1/users/alice/keys"), again.getMessage());
        assertEquals(Role.USER, users.get("alice").role(), "her role is not changed");
    }

    @Test
    void shouldReserveTheBootstrapAdminsId() {
        users.put(Accounts.BOOTSTRAP_ADMIN, new UserAccount(Accounts.BOOTSTRAP_ADMIN, Role.ADMIN, Instant.EPOCH));

        assertEquals(Refused.Reason.CONFLICT, assertThrows(Refused.class,
                () -> administration.create(Accounts.BOOTSTRAP_ADMIN, Role.USER)).reason());
        users.remove(Accounts.BOOTSTRAP_ADMIN);
        assertEquals(Refused.Reason.CONFLICT, assertThrows(Refused.class,
                () -> administration.create(Accounts.BOOTSTRAP_ADMIN, Role.ADMIN)).reason(),
                "not even when unused yet");
        users.put(Accounts.BOOTSTRAP_ADMIN, new UserAccount(Accounts.BOOTSTRAP_ADMIN, Role.ADMIN, Instant.EPOCH));
        assertEquals(Refused.Reason.CONFLICT, assertThrows(Refused.class,
                () -> administration.delete("root", Accounts.BOOTSTRAP_ADMIN)).reason());
        assertEquals(List.of(), steps, "nothing revoked, nothing deleted");
    }
}
