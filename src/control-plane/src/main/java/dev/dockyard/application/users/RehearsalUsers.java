package dev.dockyard.application.users;

import dev.dockyard.application.Refused;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The users the start's rehearsal of a provision makes and deletes ({@code warmup.StartupRehearsal}):
 * each an ordinary user with a quota of its own, named {@link #PREFIX} and 12 hex digits. The
 * prefix is reserved: {@link UserAdministration#create} refuses it, so that deleting a rehearsal's
 * leftover never deletes a user of an admin's.
 */
@ApplicationScoped
public class RehearsalUsers {

    /** The reserved beginning of their ids. */
    public static final String PREFIX = "dockyard-warm-up-";
    private static final Pattern ID = Pattern.compile(Pattern.quote(PREFIX) + "[0-9a-f]{12}");
    /** Who deletes them: any id but theirs ({@link UserAdministration#delete} refuses oneself). */
    private static final String CALLER = "dockyard-warm-up";

    @Inject
    Accounts accounts;

    @Inject
    UserAdministration administration;

    /** A rehearsal's user and its key. */
    public record Made(String userId, String key) {
    }

    /** A new rehearsal user with its key (shown to nobody: the rehearsal's requests carry it). */
    public Made make() {
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        String userId = PREFIX + HexFormat.of().formatHex(random);
        String key = accounts.create(userId, Role.USER).orElseThrow(() -> new Refused(Refused.Reason.CONFLICT,
                "user " + userId + " exists"));
        return new Made(userId, key);
    }

    /** Deletes the user with their live runtimes and what they kept; one deleted already is done. */
    public void delete(String userId) {
        try {
            administration.delete(CALLER, userId);
        } catch (Refused e) {
            if (e.reason() != Refused.Reason.NOT_FOUND) {
                throw e;
            }
            // another control plane's start deleted this leftover first
        }
    }

    /** Rehearsal users made longer than {@code age} ago: no rehearsal running now owns them. */
    public List<String> leftovers(Instant now, Duration age) {
        return accounts.all().stream().filter(a -> isLeftover(a, now, age)).map(UserAccount::userId).toList();
    }

    static boolean isLeftover(UserAccount account, Instant now, Duration age) {
        return isRehearsals(account.userId()) && account.createdAt().isBefore(now.minus(age));
    }

    /** Whether the id is a rehearsal user's, as {@link #make} names them. */
    static boolean isRehearsals(String userId) {
        return userId != null && ID.matcher(userId).matches();
    }
}
