package dev.dockyard.application;

import dev.dockyard.config.DockyardConfig;
import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.logging.Logger;

/**
 * What an admin does to users beyond creating them: list them with what they use, rotate a key,
 * delete one. A deleted user's keys are refused first (so they start nothing new meanwhile), then
 * their live runtimes are deleted through {@link RuntimeService} like any DELETE would, and only
 * then their account goes. Their kept workspaces, snapshots and credentials are not touched.
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

    /** A new key for the user, shown once; their old keys are refused from now on. */
    public String rotateKey(String userId) {
        return accounts.rotateKey(userId).orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND, "No user " + userId));
    }

    /**
     * Deletes the user after deleting their live runtimes. Refused for the caller themself and for
     * the last admin account when no bootstrap admin key is configured (nobody could manage users after).
     */
    public void delete(String callerId, String userId) {
        if (userId.equals(callerId)) {
            throw new Refused(Refused.Reason.CONFLICT, "You cannot delete yourself");
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
        accounts.delete(userId);
    }

    private List<SandboxRuntime> live(String userId) {
        return runtimes.list(userId, null, null).stream().filter(r -> r.status().isLive()).toList();
    }
}
