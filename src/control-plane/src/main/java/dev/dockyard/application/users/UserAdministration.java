package dev.dockyard.application.users;

import dev.dockyard.application.Refused;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.persistence.DatabaseOutage;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.KeyKind;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What an admin does to users: create one, list them with what they use, rotate a key, delete
 * one. An existing id is never created again (its role and keys stay; a key is rotated by its own
 * call), and the bootstrap admin's id ({@link Accounts#BOOTSTRAP_ADMIN}) is neither created nor
 * deleted. A deleted user's keys are refused first (so they start nothing new meanwhile), then
 * their live runtimes are deleted through {@link RuntimeService} like any DELETE would, then what
 * they kept under their id ({@link UserRecords}), and only then their account goes: an id given
 * again starts with nothing of the old account's.
 */
@ApplicationScoped
public class UserAdministration {

    private static final Logger LOG = Logger.getLogger(UserAdministration.class.getName());

    @Inject
    Accounts accounts;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    RuntimeService lifecycle;

    @Inject
    DockyardConfig config;

    @Inject
    UserRecords records;

    /** A user and what their live runtimes take. */
    public record UserUsage(UserAccount account, int runtimes, double cpus, long memoryMb) {
    }

    public List<UserUsage> list() {
        return accounts.all().stream().map(this::usage).toList();
    }

    private UserUsage usage(UserAccount account) {
        List<SandboxRuntime> live = live(account.userId());
        return new UserUsage(account, live.size(), live.stream().mapToDouble(SandboxRuntime::cpus).sum(),
                live.stream().mapToLong(SandboxRuntime::memoryMb).sum());
    }

    /**
     * A new user with their first key, shown once.
     *
     * @throws Refused CONFLICT when the id is taken, is the bootstrap admin's or begins as the
     *                 start's rehearsal users' do ({@link RehearsalUsers#PREFIX})
     */
    public String create(String userId, Role role) {
        if (Accounts.BOOTSTRAP_ADMIN.equals(userId)) {
            throw new Refused(Refused.Reason.CONFLICT, "User id '" + userId + "' is reserved for the bootstrap admin "
                    + "(dockyard.bootstrap.admin-key)");
        }
        if (userId.startsWith(RehearsalUsers.PREFIX)) {
            // the start deletes such users as its rehearsal's leftovers
            throw new Refused(Refused.Reason.CONFLICT, "User ids beginning with '" + RehearsalUsers.PREFIX
                    + "' are reserved for the start's rehearsal of a provision");
        }
        Optional<String> key;
        try {
            key = accounts.create(userId, role);
        } catch (PersistenceException | TransactionalException raced) {
            if (DatabaseOutage.causes(raced)) {
                // no race: the database did not answer (503 with Retry-After, not "exists")
                throw raced;
            }
            // a parallel create of the same id committed first
            key = Optional.empty();
        }
        return key.orElseThrow(() -> new Refused(Refused.Reason.CONFLICT, "User " + userId + " exists; its role and "
                + "keys are unchanged. To give it a new key (its older keys then refused), POST /api/v1/users/"
                + userId + "/keys; to re-create it, DELETE /api/v1/users/" + userId + " first"));
    }

    /** A new key for the user, of {@code kind}, shown once; their old keys are refused from now on. */
    public String rotateKey(String userId, KeyKind kind) {
        return accounts.rotateKey(userId, kind).orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND,
                "No user " + userId));
    }

    /**
     * Deletes the user after deleting their live runtimes and what they kept. Refused for the caller
     * themself, for the bootstrap admin, and for the last admin account when no bootstrap admin key
     * is configured (nobody could manage users after).
     */
    public void delete(String callerId, String userId) {
        if (userId.equals(callerId)) {
            throw new Refused(Refused.Reason.CONFLICT, "You cannot delete yourself");
        }
        if (Accounts.BOOTSTRAP_ADMIN.equals(userId)) {
            throw new Refused(Refused.Reason.CONFLICT, "User " + userId + " is the bootstrap admin "
                    + "(dockyard.bootstrap.admin-key): remove that setting instead");
        }
        UserAccount account = accounts.find(userId)
                .orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND, "No user " + userId));
        if (account.role() == Role.ADMIN && config.bootstrapAdminKey().isEmpty()
                && accounts.all().stream().filter(a -> a.role() == Role.ADMIN).count() <= 1) {
            throw new Refused(Refused.Reason.CONFLICT, "User " + userId + " is the last admin");
        }
        accounts.revokeKeys(userId);
        List<SandboxRuntime> live = live(userId);
        for (SandboxRuntime runtime : live) {
            lifecycle.delete(runtime.id(), false);
        }
        if (!live.isEmpty()) {
            LOG.info(() -> "Deleted " + live.size() + " live runtime(s) of user " + userId + " before the user");
        }
        // before the account: a failure here leaves it (keys refused) for the admin to delete again
        records.forget(userId);
        accounts.delete(userId);
    }

    private List<SandboxRuntime> live(String userId) {
        return runtimes.list(userId, null, null).stream().filter(r -> r.status().isLive()).toList();
    }
}
