package dev.dockyard.tenancy;

import java.util.List;
import java.util.Optional;

/**
 * Where user accounts and their API keys are kept: the port of {@link Accounts}, implemented on
 * JPA in {@code persistence}. Transactions belong to the caller ({@link Accounts} opens a short one
 * per change, the provisioning journal holds one around a quota check), so every method joins
 * whatever transaction is active.
 */
public interface AccountStore {

    /** What a user's live runtimes use, counted for a quota check. */
    record LiveUse(long runtimes, double cpus, long memoryMb) {
    }

    Optional<UserAccount> find(String userId);

    /** The user's row, locked for the rest of the transaction: changes to an account never interleave. */
    Optional<UserAccount> lock(String userId);

    void add(UserAccount account);

    void remove(UserAccount account);

    /** Every user, by id. */
    List<UserAccount> all();

    /** The key stored under this hash, if any. */
    Optional<ApiKeyRecord> key(String keyHash);

    void add(ApiKeyRecord key);

    /** Removes every key of the user. */
    void removeKeys(String userId);

    /** Writes what the transaction changed so far, so a constraint violation surfaces now. */
    void flush();

    /** What the user's live runtimes (every status but the terminal ones) use together. */
    LiveUse liveUse(String userId);
}
