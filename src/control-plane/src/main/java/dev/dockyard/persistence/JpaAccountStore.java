package dev.dockyard.persistence;

import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.tenancy.AccountStore;
import dev.dockyard.tenancy.ApiKeyRecord;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import java.util.Optional;

/**
 * User accounts and their API keys on JPA ({@link AccountStore} is the port the accounts see).
 * Every method joins the caller's transaction.
 */
@ApplicationScoped
public class JpaAccountStore implements AccountStore {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    public Optional<UserAccount> find(String userId) {
        return Optional.ofNullable(em.find(UserAccount.class, userId));
    }

    @Override
    public Optional<UserAccount> lock(String userId) {
        return Optional.ofNullable(em.find(UserAccount.class, userId, LockModeType.PESSIMISTIC_WRITE));
    }

    @Override
    public void add(UserAccount account) {
        em.persist(account);
    }

    @Override
    public void remove(UserAccount account) {
        em.remove(account);
    }

    @Override
    public List<UserAccount> all() {
        return em.createQuery("select u from UserAccount u order by u.userId", UserAccount.class).getResultList();
    }

    @Override
    public Optional<ApiKeyRecord> key(String keyHash) {
        return Optional.ofNullable(em.find(ApiKeyRecord.class, keyHash));
    }

    @Override
    public void add(ApiKeyRecord key) {
        em.persist(key);
    }

    @Override
    public void removeKeys(String userId) {
        em.createQuery("delete from ApiKeyRecord k where k.userId = :user").setParameter("user", userId).executeUpdate();
    }

    @Override
    public void flush() {
        em.flush();
    }

    @Override
    public LiveUse liveUse(String userId) {
        Object[] use = em.createQuery("select count(r), coalesce(sum(r.cpus), 0), coalesce(sum(r.memoryMb), 0) "
                        + "from SandboxRuntime r where r.userId = :user and r.status not in :ended", Object[].class)
                .setParameter("user", userId)
                .setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR))
                .getSingleResult();
        return new LiveUse(((Number) use[0]).longValue(), ((Number) use[1]).doubleValue(),
                ((Number) use[2]).longValue());
    }
}
