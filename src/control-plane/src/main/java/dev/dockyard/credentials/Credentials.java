package dev.dockyard.credentials;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A user's stored credentials and their resolution through the providers. */
@ApplicationScoped
public class Credentials {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Inject
    Instance<CredentialProvider> providers;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    public CredentialProvider provider(String type) {
        for (CredentialProvider provider : providers) {
            if (provider.type().equals(type)) {
                return provider;
            }
        }
        throw new CredentialException("no credential provider of type '" + type + "'");
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void save(StoredCredential credential) {
        StoredCredential existing = em.find(StoredCredential.class, StoredCredential.idOf(credential.userId(),
                credential.name()));
        if (existing != null) {
            em.remove(existing);
            em.flush();
        }
        em.persist(credential);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean delete(String userId, String name) {
        StoredCredential existing = em.find(StoredCredential.class, StoredCredential.idOf(userId, name));
        if (existing == null) {
            return false;
        }
        em.remove(existing);
        return true;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<StoredCredential> of(String userId) {
        return em.createQuery("select c from StoredCredential c where c.userId = :user order by c.name",
                StoredCredential.class).setParameter("user", userId).getResultList();
    }

    /**
     * Every credential of the user, valid now: each is validated and refreshed (and the refresh
     * stored) when it expires within {@code dockyard.credentials.refresh-window}. Name → value.
     *
     * @throws CredentialException naming the first credential that cannot be made valid
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Map<String, String> resolveAll(String userId) {
        Instant now = clock.instant();
        Map<String, String> values = new LinkedHashMap<>();
        // locked, so that two refreshes of a rotating refresh token never race (Derby: no ORDER BY with a lock)
        List<StoredCredential> stored = new java.util.ArrayList<>(em.createQuery(
                "select c from StoredCredential c where c.userId = :user", StoredCredential.class)
                .setParameter("user", userId).setLockMode(LockModeType.PESSIMISTIC_WRITE).getResultList());
        stored.sort(java.util.Comparator.comparing(StoredCredential::name));
        for (StoredCredential credential : stored) {
            values.put(credential.name(), provider(credential.type()).resolve(credential, now,
                    config.credentialRefreshWindow()));
        }
        return values;
    }

    /** Users with a credential that expires within the refresh window. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<String> usersNeedingRefresh() {
        return em.createQuery("select distinct c.userId from StoredCredential c where c.expiresAt is not null "
                + "and c.expiresAt < :soon", String.class)
                .setParameter("soon", clock.instant().plus(config.credentialRefreshWindow())).getResultList();
    }
}
