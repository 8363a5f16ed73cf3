package dev.dockyard.credentials;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * A user's stored credentials and their resolution through the providers.
 *
 * <p>A refresh is a call to someone else's token endpoint, and with rotating refresh tokens the
 * provider invalidates the old token the moment it answers. So each credential is resolved on its
 * own, with no transaction or row lock held during the call; the answer is stored in a short
 * transaction of its own right away, before anything else can fail, so one credential failing
 * never undoes another's rotation. Two refreshes of one credential never race: within this
 * control plane they take turns (the second finds the first's fresh token), and across control
 * planes the store's compare-and-set keeps whichever rotation landed first.
 */
@ApplicationScoped
public class Credentials {

    private static final Logger LOG = Logger.getLogger(Credentials.class.getName());
    private static final int STRIPES = 64;
    /** Longer than a token call's own bound (5 s connect, 15 s answer): a turn never waits forever. */
    private static final long TURN_WAIT_SECONDS = 45;

    /** Every credential's value valid now, or the last stored one and why it could not be renewed. */
    public record Resolution(Map<String, String> values, Map<String, String> stale, List<CredentialException> failures) {
    }

    private CredentialStore store;
    private Iterable<CredentialProvider> providers;
    private Duration window;
    private Clock clock;
    private final ReentrantLock[] turns = new ReentrantLock[STRIPES];

    protected Credentials() {
        // CDI proxy
    }

    @Inject
    public Credentials(CredentialStore store, Instance<CredentialProvider> providers, DockyardConfig config,
                       Clock clock) {
        this(store, providers, config.credentialRefreshWindow(), clock);
    }

    public Credentials(CredentialStore store, Iterable<CredentialProvider> providers, Duration window, Clock clock) {
        this.store = store;
        this.providers = providers;
        this.window = window;
        this.clock = clock;
        for (int i = 0; i < STRIPES; i++) {
            turns[i] = new ReentrantLock();
        }
    }

    public CredentialProvider provider(String type) {
        for (CredentialProvider provider : providers) {
            if (provider.type().equals(type)) {
                return provider;
            }
        }
        throw new CredentialException("no credential provider of type '" + type + "'");
    }

    /**
     * Validates a credential a user hands in (an OAuth2 one is refreshed once, so that a bad
     * refresh token or a refused endpoint is the user's error now, not a failed provisioning
     * later) and stores it, replacing one of the same name.
     *
     * @throws CredentialException saying what is wrong with it
     */
    public void store(StoredCredential credential) {
        provider(credential.type()).resolve(credential, clock.instant(), Duration.ZERO);
        store.save(credential);
    }

    public boolean delete(String userId, String name) {
        return store.delete(userId, name);
    }

    public List<StoredCredential> of(String userId) {
        return store.of(userId);
    }

    /**
     * Every credential of the user, valid now: each is validated and refreshed (and the refresh
     * stored) when it expires within {@code dockyard.credentials.refresh-window}. Name → value.
     *
     * @throws CredentialException naming the first credential that cannot be made valid, after
     *         every other one was tried (and its refresh stored)
     */
    public Map<String, String> resolveAll(String userId) {
        Resolution resolution = resolve(userId);
        if (!resolution.failures().isEmpty()) {
            throw resolution.failures().get(0);
        }
        return resolution.values();
    }

    /** Every credential of the user tried in name order; failures are collected, not thrown. */
    public Resolution resolve(String userId) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> stale = new LinkedHashMap<>();
        List<CredentialException> failures = new ArrayList<>();
        for (StoredCredential credential : store.of(userId)) {
            try {
                values.put(credential.name(), resolveOne(credential));
            } catch (CredentialException e) {
                failures.add(e);
                if (credential.value() != null) {
                    stale.put(credential.name(), credential.value());
                }
            }
        }
        return new Resolution(values, stale, failures);
    }

    /** Users with a credential that expires within the refresh window. */
    public List<String> usersNeedingRefresh() {
        return store.usersWithCredentialsExpiringBefore(clock.instant().plus(window));
    }

    private String resolveOne(StoredCredential listed) {
        ReentrantLock turn = turns[Math.floorMod(listed.id().hashCode(), STRIPES)];
        try {
            if (!turn.tryLock(TURN_WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new CredentialException("credential " + listed.name() + " is being refreshed; try again");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CredentialException("credential " + listed.name() + ": interrupted while waiting for its refresh");
        }
        try {
            // read again in our turn: a refresh that went before us left its fresh token
            StoredCredential credential = store.find(listed.id()).orElseThrow(() ->
                    new CredentialException("credential " + listed.name() + " was deleted"));
            return refreshAndRecord(credential);
        } finally {
            turn.unlock();
        }
    }

    private String refreshAndRecord(StoredCredential credential) {
        CredentialProvider provider = provider(credential.type());
        String spent = credential.refreshToken();
        String valueBefore = credential.value();
        Instant expiresBefore = credential.expiresAt();
        Instant now = clock.instant();
        String value;
        try {
            value = provider.resolve(credential, now, window);
        } catch (CredentialException e) {
            return rotatedElsewhere(credential, spent, now).orElseThrow(() -> e);
        } catch (RuntimeException e) {
            LOG.warning("Credential " + credential.id() + " could not be resolved: " + e.getClass().getName());
            throw new CredentialException("credential " + credential.name() + " could not be resolved");
        }
        boolean refreshed = !Objects.equals(valueBefore, credential.value())
                || !Objects.equals(expiresBefore, credential.expiresAt())
                || !Objects.equals(spent, credential.refreshToken());
        if (refreshed) {
            switch (store.recordRefresh(credential.id(), spent, credential.value(), credential.expiresAt(),
                    credential.refreshToken())) {
                case STORED, SUPERSEDED -> {
                    // superseded: another control plane rotated first and its tokens stand; ours is valid too
                }
                case GONE -> throw new CredentialException("credential " + credential.name() + " was deleted");
            }
        }
        return value;
    }

    /**
     * After a failed refresh: when the stored refresh token is no longer the one we spent, another
     * control plane refreshed in between (and ours was refused as already used); its value stands.
     */
    private Optional<String> rotatedElsewhere(StoredCredential credential, String spent, Instant now) {
        if (spent == null) {
            return Optional.empty();
        }
        return store.find(credential.id()).filter(current -> !Objects.equals(current.refreshToken(), spent))
                .filter(current -> current.value() != null
                        && (current.expiresAt() == null || current.expiresAt().isAfter(now)))
                .map(StoredCredential::value);
    }
}
