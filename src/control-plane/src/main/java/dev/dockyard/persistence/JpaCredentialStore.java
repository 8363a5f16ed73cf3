package dev.dockyard.persistence;

import dev.dockyard.credentials.CredentialStore;
import dev.dockyard.credentials.StoredCredential;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.CacheRetrieveMode;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The credential table on JPA ({@link CredentialStore} is the port the credentials see). Every
 * method is its own short transaction and hands out detached copies, so no caller can hold a row
 * lock or a transaction across a call to a token endpoint.
 */
@ApplicationScoped
public class JpaCredentialStore implements CredentialStore {

    /** Another control plane may have rotated a token: reads go to the database, not to this one's cache. */
    private static final String RETRIEVE_MODE = "jakarta.persistence.cache.retrieveMode";

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public void save(StoredCredential credential) {
        StoredCredential existing = em.find(StoredCredential.class, credential.id());
        if (existing != null) {
            em.remove(existing);
            em.flush();
        }
        em.persist(credential);
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public boolean delete(String userId, String name) {
        StoredCredential existing = em.find(StoredCredential.class, StoredCredential.idOf(userId, name));
        if (existing == null) {
            return false;
        }
        em.remove(existing);
        return true;
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public List<StoredCredential> of(String userId) {
        return em.createQuery("select c from StoredCredential c where c.userId = :user order by c.name",
                StoredCredential.class).setParameter("user", userId).setHint(RETRIEVE_MODE, CacheRetrieveMode.BYPASS)
                .getResultList();
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public Optional<StoredCredential> find(String id) {
        return Optional.ofNullable(em.find(StoredCredential.class, id, Map.of(RETRIEVE_MODE, CacheRetrieveMode.BYPASS)));
    }

    @Override
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

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public boolean claimRefresh(String id, Instant now, Instant until) {
        return em.createQuery("update StoredCredential c set c.refreshingUntil = :until where c.id = :id "
                        + "and (c.refreshingUntil is null or c.refreshingUntil < :now)")
                .setParameter("until", until).setParameter("id", id).setParameter("now", now).executeUpdate() == 1;
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public void releaseRefresh(String id) {
        em.createQuery("update StoredCredential c set c.refreshingUntil = null where c.id = :id")
                .setParameter("id", id).executeUpdate();
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public List<String> usersWithCredentialsExpiringBefore(Instant soon) {
        return em.createQuery("select distinct c.userId from StoredCredential c where c.expiresAt is not null "
                + "and c.expiresAt < :soon", String.class).setParameter("soon", soon).getResultList();
    }
}
