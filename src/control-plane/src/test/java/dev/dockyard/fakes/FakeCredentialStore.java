package dev.dockyard.fakes;

import dev.dockyard.credentials.CredentialStore;
import dev.dockyard.credentials.StoredCredential;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The credential table in memory, handing out copies as the real store hands out detached
 * entities: what a caller changes on a copy is stored only through {@link #recordRefresh}.
 */
public class FakeCredentialStore implements CredentialStore {

    private final Map<String, StoredCredential> rows = new TreeMap<>();

    @Override
    public synchronized void save(StoredCredential credential) {
        rows.put(credential.id(), copy(credential));
    }

    @Override
    public synchronized boolean delete(String userId, String name) {
        return rows.remove(StoredCredential.idOf(userId, name)) != null;
    }

    @Override
    public synchronized List<StoredCredential> of(String userId) {
        return rows.values().stream().filter(c -> c.userId().equals(userId))
                .sorted(Comparator.comparing(StoredCredential::name)).map(FakeCredentialStore::copy).toList();
    }

    @Override
    public synchronized Optional<StoredCredential> find(String id) {
        return Optional.ofNullable(rows.get(id)).map(FakeCredentialStore::copy);
    }

    @Override
    public synchronized RefreshOutcome recordRefresh(String id, String spentRefreshToken, String accessToken,
                                                     Instant expires, String rotatedRefreshToken) {
        StoredCredential row = rows.get(id);
        if (row == null) {
            return RefreshOutcome.GONE;
        }
        if (!Objects.equals(row.refreshToken(), spentRefreshToken)) {
            return RefreshOutcome.SUPERSEDED;
        }
        row.refreshed(accessToken, expires, rotatedRefreshToken);
        return RefreshOutcome.STORED;
    }

    @Override
    public synchronized boolean claimRefresh(String id, Instant now, Instant until) {
        StoredCredential row = rows.get(id);
        if (row == null || (row.refreshingUntil() != null && !row.refreshingUntil().isBefore(now))) {
            return false;
        }
        row.refreshingUntil(until);
        return true;
    }

    @Override
    public synchronized void releaseRefresh(String id) {
        StoredCredential row = rows.get(id);
        if (row != null) {
            row.refreshingUntil(null);
        }
    }

    @Override
    public synchronized List<String> usersWithCredentialsExpiringBefore(Instant soon) {
        return rows.values().stream().filter(c -> c.expiresAt() != null && c.expiresAt().isBefore(soon))
                .map(StoredCredential::userId).distinct().toList();
    }

    private static StoredCredential copy(StoredCredential c) {
        StoredCredential copy = new StoredCredential(c.userId(), c.name(), c.type());
        if (c.type().equals("secret")) {
            copy.secret(c.value());
        } else {
            copy.oauth2(c.refreshToken(), c.tokenEndpoint(), c.clientId(), c.clientSecret());
            if (c.value() != null || c.expiresAt() != null) {
                copy.refreshed(c.value(), c.expiresAt(), null);
            }
        }
        copy.refreshingUntil(c.refreshingUntil());
        return copy;
    }
}
