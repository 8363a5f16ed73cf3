package dev.dockyard.persistence;

import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The runtimes' repository on JPA ({@link RuntimeRepository} is the port the domain sees). Every
 * method joins whatever transaction is active; a recorded status change is fired as a CDI event,
 * which its observers hear once the transaction commits.
 */
@ApplicationScoped
public class JpaRuntimeRepository implements RuntimeRepository {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Inject
    Event<StatusChange> changes;

    @Override
    public Optional<SandboxRuntime> find(String id) {
        return Optional.ofNullable(em.find(SandboxRuntime.class, id));
    }

    @Override
    public Optional<SandboxRuntime> lock(String id) {
        return Optional.ofNullable(em.find(SandboxRuntime.class, id, LockModeType.PESSIMISTIC_WRITE));
    }

    @Override
    public void add(SandboxRuntime runtime, StatusChange first) {
        em.persist(runtime);
        em.persist(first);
        changes.fire(first);
        // surface a unique-constraint violation (a second live runtime for the conversation) here
        em.flush();
    }

    @Override
    public void record(StatusChange change) {
        em.persist(change);
        changes.fire(change);
    }

    @Override
    public void flush() {
        em.flush();
    }

    @Override
    public Optional<SandboxRuntime> findLive(String userId, String conversationId) {
        return em.createQuery("select r from SandboxRuntime r where r.liveConversation = :key", SandboxRuntime.class)
                .setParameter("key", SandboxRuntime.liveKey(userId, conversationId))
                .getResultStream().findFirst();
    }

    @Override
    public List<SandboxRuntime> list(String userId, String conversationId, RuntimeStatus status) {
        StringBuilder jpql = new StringBuilder("select r from SandboxRuntime r where 1 = 1");
        if (userId != null) {
            jpql.append(" and r.userId = :user");
        }
        if (conversationId != null) {
            jpql.append(" and r.conversationId = :conversation");
        }
        if (status != null) {
            jpql.append(" and r.status = :status");
        }
        jpql.append(" order by r.createdAt desc");
        TypedQuery<SandboxRuntime> query = em.createQuery(jpql.toString(), SandboxRuntime.class);
        if (userId != null) {
            query.setParameter("user", userId);
        }
        if (conversationId != null) {
            query.setParameter("conversation", conversationId);
        }
        if (status != null) {
            query.setParameter("status", status);
        }
        return query.setMaxResults(1000).getResultList();
    }

    @Override
    public Optional<SandboxRuntime> replacementOf(String runtimeId) {
        return em.createQuery("select r from SandboxRuntime r where r.replaces = :id and r.status not in :ended",
                        SandboxRuntime.class)
                .setParameter("id", runtimeId)
                .setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR))
                .getResultStream().findFirst();
    }

    @Override
    public List<SandboxRuntime> live() {
        return em.createQuery("select r from SandboxRuntime r where r.status not in :ended", SandboxRuntime.class)
                .setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR)).getResultList();
    }

    @Override
    public int forgetEnded(String userId) {
        List<RuntimeStatus> ended = List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR);
        em.createQuery("delete from StatusChange c where c.runtimeId in (select r.id from SandboxRuntime r "
                + "where r.userId = :user and r.status in :ended)").setParameter("user", userId)
                .setParameter("ended", ended).executeUpdate();
        return em.createQuery("delete from SandboxRuntime r where r.userId = :user and r.status in :ended")
                .setParameter("user", userId).setParameter("ended", ended).executeUpdate();
    }

    @Override
    public int forgetEndedBefore(Instant cutoff, int max) {
        List<String> ids = em.createQuery("select r.id from SandboxRuntime r where r.status in :ended "
                        + "and r.updatedAt < :cutoff", String.class)
                .setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR))
                .setParameter("cutoff", cutoff).setMaxResults(max).getResultList();
        if (ids.isEmpty()) {
            return 0;
        }
        em.createQuery("delete from StatusChange c where c.runtimeId in :ids").setParameter("ids", ids).executeUpdate();
        return em.createQuery("delete from SandboxRuntime r where r.id in :ids and r.status in :ended")
                .setParameter("ids", ids).setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR))
                .executeUpdate();
    }

    @Override
    public int forgetChangesBefore(Instant cutoff, int max) {
        // a runtime's newest change stays, however old: its events stream opens with its status
        List<String> ids = em.createQuery("select c.id from StatusChange c where c.at < :cutoff and exists "
                        + "(select n.id from StatusChange n where n.runtimeId = c.runtimeId and n.at > c.at)", String.class)
                .setParameter("cutoff", cutoff).setMaxResults(max).getResultList();
        return ids.isEmpty() ? 0
                : em.createQuery("delete from StatusChange c where c.id in :ids").setParameter("ids", ids)
                        .executeUpdate();
    }

    @Override
    public List<StatusChange> history(String runtimeId) {
        return em.createQuery("select c from StatusChange c where c.runtimeId = :id order by c.at", StatusChange.class)
                .setParameter("id", runtimeId).getResultList();
    }

    @Override
    public List<Count> countByStatusAndNode() {
        return em.createQuery("select r.status, r.node, count(r) from SandboxRuntime r group by r.status, r.node",
                Object[].class).getResultList().stream()
                .map(row -> new Count((RuntimeStatus) row[0], (String) row[1], ((Number) row[2]).longValue())).toList();
    }
}
