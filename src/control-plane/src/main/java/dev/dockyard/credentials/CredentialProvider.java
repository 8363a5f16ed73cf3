package dev.dockyard.credentials;

import java.time.Duration;
import java.time.Instant;

/**
 * Resolves one kind of stored credential to a value valid now. Implementations are CDI beans;
 * {@link #type()} is the {@code type} users give when they store a credential.
 */
public interface CredentialProvider {

    String type();

    /**
     * Validates {@code credential}, refreshing it (in place) when it is missing or expires before
     * {@code now + window}.
     *
     * @return the value to inject
     * @throws CredentialException when it cannot be made valid
     */
    String resolve(StoredCredential credential, Instant now, Duration window);

    /** Whether {@link #resolve} would call out to refresh it now (a credential that never expires: no). */
    default boolean needsRefresh(StoredCredential credential, Instant now, Duration window) {
        return false;
    }
}
