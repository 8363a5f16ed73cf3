package dev.dockyard.application.idempotency;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/** Stores first answers under their idempotency keys, each step in a short transaction of its own. */
@ApplicationScoped
public class IdempotencyKeys {

    /** How long a key is remembered. */
    public static final Duration RETENTION = Duration.ofHours(24);

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Inject
    Clock clock;

    /** Claims the key for a request; fails (on the primary key) when another request claimed it first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void claim(String id, String requestHash) {
        em.persist(new IdempotentAnswer(id, requestHash, clock.instant()));
        em.flush();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<IdempotentAnswer> find(String id) {
        IdempotentAnswer answer = em.find(IdempotentAnswer.class, id);
        if (answer != null && answer.completed()) {
            em.detach(answer);
        }
        return Optional.ofNullable(answer);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void complete(String id, int status, String body) {
        IdempotentAnswer answer = em.find(IdempotentAnswer.class, id);
        if (answer != null) {
            answer.complete(status, body);
        }
    }

    /** Forgets a claim whose request failed unexpectedly, so that a retry can run it. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void release(String id) {
        IdempotentAnswer answer = em.find(IdempotentAnswer.class, id);
        if (answer != null && !answer.completed()) {
            em.remove(answer);
        }
    }

    /**
     * Forgets every key of the user (stored as {@code userId/key}): a deleted user's first answers
     * must not be replayed to a new account given the same id.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int forgetUser(String userId) {
        // the id taken literally: a wildcard in it must not reach another user's keys
        String prefix = userId.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "/%";
        return em.createQuery("delete from IdempotentAnswer a where a.id like :prefix escape '!'")
                .setParameter("prefix", prefix).executeUpdate();
    }

    /** Forgets keys older than the retention. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int purge() {
        return em.createQuery("delete from IdempotentAnswer a where a.createdAt < :before")
                .setParameter("before", clock.instant().minus(RETENTION)).executeUpdate();
    }
}
