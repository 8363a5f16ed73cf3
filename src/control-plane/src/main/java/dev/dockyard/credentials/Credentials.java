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
import java.util.concurrent.ConcurrentHashMap;
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
 * control plane they take turns (the second finds the first's fresh token); across control planes
 * a refresh lease in the credential's row lets one refresh while the others wait for its answer,
 * and the store's compare-and-set keeps whichever rotation landed first should a lease run out.
 */
@ApplicationScoped
public class Credentials {

    private static final Logger LOG = Logger.getLogger(Credentials.class.getName());
    /** Longer than a token call's own bound (20 s): a turn never waits forever. */
    private static final long TURN_WAIT_SECONDS = 45;
    /** How long a control plane may hold a credential's refresh for itself. */
    static final Duration LEASE = Duration.ofSeconds(40);
    private static final long OTHER_REFRESH_POLL_MS = 250;

    /** Every credential's value valid now, or the last stored one and why it could not be renewed. */
    public record Resolution(Map<String, String> values, Map<String, String> stale, List<CredentialException> failures) {
    }

    private CredentialStore store;
    private Iterable<CredentialProvider> providers;
    private Duration window;
    private Clock clock;
    /** One turn per credential: two refreshes of one credential never overlap here, others never wait. */
    private final Map<String, ReentrantLock> turns = new ConcurrentHashMap<>();

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
        ReentrantLock turn = turns.computeIfAbsent(listed.id(), id -> new ReentrantLock());
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
            StoredCredential credential = current(listed);
            CredentialProvider provider = provider(credential.type());
            if (!provider.needsRefresh(credential, clock.instant(), window)) {
                // nothing to call out for; whatever the provider changes all the same is stored
                return refreshAndRecord(credential, provider);
            }
            if (!store.claimRefresh(credential.id(), clock.instant(), clock.instant().plus(LEASE))) {
                // another control plane is refreshing it: its answer will do
                Optional<String> theirs = awaitOtherRefresh(credential, provider);
                if (theirs.isPresent()) {
                    return theirs.get();
                }
                if (!store.claimRefresh(credential.id(), clock.instant(), clock.instant().plus(LEASE))) {
                    throw new CredentialException("credential " + credential.name()
                            + " is being refreshed by another control plane; try again");
                }
                credential = current(listed);
            }
            try {
                return refreshAndRecord(credential, provider);
            } finally {
                store.releaseRefresh(credential.id());
            }
        } finally {
            turn.unlock();
        }
    }

    private StoredCredential current(StoredCredential listed) {
        return store.find(listed.id()).orElseThrow(() ->
                new CredentialException("credential " + listed.name() + " was deleted"));
    }

    /**
     * Waits (real time, bounded by the lease) for the control plane holding the lease to store its
     * refresh; its value if it did and the value is valid, empty when the lease ended without one.
     */
    private Optional<String> awaitOtherRefresh(StoredCredential credential, CredentialProvider provider) {
        String spent = credential.refreshToken();
        long deadline = System.nanoTime() + LEASE.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(OTHER_REFRESH_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CredentialException("credential " + credential.name() + ": interrupted while waiting");
            }
            StoredCredential now = current(credential);
            if (!provider.needsRefresh(now, clock.instant(), window)) {
                return Optional.of(provider.resolve(now, clock.instant(), window));
            }
            if (!Objects.equals(now.refreshToken(), spent)) {
                return Optional.empty(); // rotated, yet due again: ours to refresh
            }
            if (now.refreshingUntil() == null || now.refreshingUntil().isBefore(clock.instant())) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private String refreshAndRecord(StoredCredential credential, CredentialProvider provider) {
        String spent = credential.refreshToken();
        String valueBefore = credential.value();
        Instant expiresBefore = credential.expiresAt();
        Instant now = clock.instant();
        String value;
        try {
            value = provider.resolve(credential, now, window);
        } catch (CredentialException e) {
            if (!Objects.equals(spent, credential.refreshToken())) {
                // the provider rotated the token and then something else was wrong: the new one is
                // the only one that works now, so it is stored all the same
                store.recordRefresh(credential.id(), spent, valueBefore, expiresBefore, credential.refreshToken());
                throw e;
            }
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
