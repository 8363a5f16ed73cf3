package dev.dockyard.persistence;

import dev.dockyard.cluster.Lease;
import dev.dockyard.cluster.LeaseStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.Optional;

/**
 * Leases in {@code DY_LEASE}. A claim is one conditional UPDATE (the database decides between two
 * instances renewing and taking at once), or an INSERT when the row does not exist yet, which the
 * primary key makes fail for all but one. Each call is a new transaction: a lease must never wait
 * for, or roll back with, the work it guards.
 */
@ApplicationScoped
public class JpaLeaseStore implements LeaseStore {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public boolean claim(String name, String holder, Instant now, Instant until) {
        int renewed = em.createQuery("UPDATE Lease l SET l.renewedAt = :now, l.expiresAt = :until "
                        + "WHERE l.name = :name AND l.holder = :holder")
                .setParameter("now", now).setParameter("until", until)
                .setParameter("name", name).setParameter("holder", holder)
                .executeUpdate();
        if (renewed == 1) {
            return true;
        }
        int taken = em.createQuery("UPDATE Lease l SET l.holder = :holder, l.acquiredAt = :now, l.renewedAt = :now, "
                        + "l.expiresAt = :until WHERE l.name = :name AND l.expiresAt < :now")
                .setParameter("holder", holder).setParameter("now", now).setParameter("until", until)
                .setParameter("name", name)
                .executeUpdate();
        if (taken == 1) {
            return true;
        }
        if (em.find(Lease.class, name) != null) {
            return false;
        }
        // a concurrent insert of the same name fails this transaction's commit: Leases counts that as not won
        em.persist(new Lease(name, holder, now, until));
        em.flush();
        return true;
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public void release(String name, String holder) {
        em.createQuery("DELETE FROM Lease l WHERE l.name = :name AND l.holder = :holder")
                .setParameter("name", name).setParameter("holder", holder)
                .executeUpdate();
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public Optional<Lease> find(String name) {
        return Optional.ofNullable(em.find(Lease.class, name));
    }

    @Override
    @Transactional(TxType.REQUIRES_NEW)
    public int forgetExpired(String prefix, Instant before) {
        return em.createQuery("DELETE FROM Lease l WHERE l.name LIKE :prefix AND l.expiresAt < :before")
                // the prefixes are Dockyard's own ("instance:"), with no wildcard in them
                .setParameter("prefix", prefix + "%")
                .setParameter("before", before)
                .executeUpdate();
    }
}
