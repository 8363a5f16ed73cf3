package dev.dockyard.credentials;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where credentials are kept: the credentials' port, implemented on JPA in {@code persistence}.
 * Every call is its own short transaction and hands out detached copies, so no caller can hold a
 * row lock or a transaction across a call to a token endpoint. Reads go to the database, not a
 * cache: another control plane may have rotated a token.
 */
public interface CredentialStore {

    /** What storing a refresh came to: stored, or another refresh had already spent the same token. */
    enum RefreshOutcome { STORED, SUPERSEDED, GONE }

    /** Stores the credential, replacing the user's credential of the same name. */
    void save(StoredCredential credential);

    /** Deletes the user's credential of that name; whether there was one. */
    boolean delete(String userId, String name);

    /** The user's credentials by name. */
    List<StoredCredential> of(String userId);

    Optional<StoredCredential> find(String id);

    /**
     * Stores a refresh made with {@code spentRefreshToken}, unless the row no longer holds that
     * token: then another refresh (another thread, another control plane) rotated it first and
     * its result stands. Compare-and-set under a row lock held for this short transaction only.
     */
    RefreshOutcome recordRefresh(String id, String spentRefreshToken, String accessToken, Instant expires,
                                 String rotatedRefreshToken);

    /**
     * Takes the refresh lease of the credential until {@code until}, unless another holder's lease
     * runs past {@code now}. Returns whether it was taken.
     */
    boolean claimRefresh(String id, Instant now, Instant until);

    /** Gives the refresh lease back. */
    void releaseRefresh(String id);

    /** Users with a credential that expires before {@code soon}. */
    List<String> usersWithCredentialsExpiringBefore(Instant soon);
}
