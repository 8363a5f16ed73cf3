package dev.dockyard.credentials;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.CacheRetrieveMode;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The credential table. Every method is its own short transaction and hands out detached copies,
 * so no caller can hold a row lock or a transaction across a call to a token endpoint.
 */
@ApplicationScoped
public class CredentialStore {

    /** Another control plane may have rotated a token: reads go to the database, not to this one's cache. */
    private static final String RETRIEVE_MODE = "jakarta.persistence.cache.retrieveMode";

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    /** What storing a refresh came to: stored, or another refresh had already spent the same token. */
    public enum RefreshOutcome { STORED, SUPERSEDED, GONE }

    @Transactional(TxType.REQUIRES_NEW)
    public void save(StoredCredential credential) {
        StoredCredential existing = em.find(StoredCredential.class, credential.id());
        if (existing != null) {
            em.remove(existing);
            em.flush();
        }
        em.persist(credential);
    }

    @Transactional(TxType.REQUIRES_NEW)
    public boolean delete(String userId, String name) {
        StoredCredential existing = em.find(StoredCredential.class, StoredCredential.idOf(userId, name));
        if (existing == null) {
            return false;
        }
        em.remove(existing);
        return true;
    }

    /** The user's credentials by name. */
    @Transactional(TxType.REQUIRES_NEW)
    public List<StoredCredential> of(String userId) {
        return em.createQuery("select c from StoredCredential c where c.userId = :user order by c.name",
                StoredCredential.class).setParameter("user", userId).setHint(RETRIEVE_MODE, CacheRetrieveMode.BYPASS)
                .getResultList();
    }

    @Transactional(TxType.REQUIRES_NEW)
    public Optional<StoredCredential> find(String id) {
        return Optional.ofNullable(em.find(StoredCredential.class, id, Map.of(RETRIEVE_MODE, CacheRetrieveMode.BYPASS)));
    }

    /**
     * Stores a refresh made with {@code spentRefreshToken}, unless the row no longer holds that
     * token: then another refresh (another thread, another control plane) rotated it first and
     * its result stands. Compare-and-set under a row lock held for this short transaction only.
     */
    @Transactional(TxType.REQUIRES_NEW)
    public RefreshOutcome recordRefresh(String id, String spentRefreshToken, String accessToken, Instant expires,
                                        String rotatedRefreshToken) {
        StoredCredential row = em.find(StoredCredential.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (row == null) {
            return RefreshOutcome.GONE;
        }
        if (!Objects.equals(row.refreshToken(), spentRefreshToken)) {
            return RefreshOutcome.SUPERSEDED;
        }
        row.refreshed(accessToken, expires, rotatedRefreshToken);
        return RefreshOutcome.STORED;
    }

    /**
     * Takes the refresh lease of the credential until {@code until}, unless another holder's lease
     * runs past {@code now}. Returns whether it was taken.
     */
    @Transactional(TxType.REQUIRES_NEW)
    public boolean claimRefresh(String id, Instant now, Instant until) {
        return em.createQuery("update StoredCredential c set c.refreshingUntil = :until where c.id = :id "
                        + "and (c.refreshingUntil is null or c.refreshingUntil < :now)")
                .setParameter("until", until).setParameter("id", id).setParameter("now", now).executeUpdate() == 1;
    }

    @Transactional(TxType.REQUIRES_NEW)
    public void releaseRefresh(String id) {
        em.createQuery("update StoredCredential c set c.refreshingUntil = null where c.id = :id")
                .setParameter("id", id).executeUpdate();
    }

    /** Users with a credential that expires before {@code soon}. */
    @Transactional(TxType.REQUIRES_NEW)
    public List<String> usersWithCredentialsExpiringBefore(Instant soon) {
        return em.createQuery("select distinct c.userId from StoredCredential c where c.expiresAt is not null "
                + "and c.expiresAt < :soon", String.class).setParameter("soon", soon).getResultList();
    }
}
