package dev.dockyard.persistence;

import dev.dockyard.idempotency.IdempotentAnswer;
import dev.dockyard.idempotency.IdempotentAnswers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.Optional;

/**
 * The first answers of idempotent requests on JPA ({@link IdempotentAnswers} is the port the use
 * case sees). Every method joins the caller's transaction.
 */
@ApplicationScoped
public class JpaIdempotentAnswers implements IdempotentAnswers {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    public void add(IdempotentAnswer answer) {
        em.persist(answer);
        em.flush();
    }

    @Override
    public Optional<IdempotentAnswer> find(String id) {
        return Optional.ofNullable(em.find(IdempotentAnswer.class, id));
    }

    @Override
    public void detach(IdempotentAnswer answer) {
        em.detach(answer);
    }

    @Override
    public void remove(IdempotentAnswer answer) {
        em.remove(answer);
    }

    @Override
    public int removeStartingWith(String prefix) {
        // the prefix taken literally: a wildcard in a user id must not reach another user's keys
        String pattern = prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
        return em.createQuery("delete from IdempotentAnswer a where a.id like :prefix escape '!'")
                .setParameter("prefix", pattern).executeUpdate();
    }

    @Override
    public boolean removeUnansweredClaim(String id, String claimer) {
        return em.createQuery("delete from IdempotentAnswer a where a.id = :id and a.claimedBy = :claimer "
                        + "and a.status is null")
                .setParameter("id", id).setParameter("claimer", claimer).executeUpdate() == 1;
    }

    @Override
    public int removeCreatedBefore(Instant before) {
        return em.createQuery("delete from IdempotentAnswer a where a.createdAt < :before")
                .setParameter("before", before).executeUpdate();
    }
}
