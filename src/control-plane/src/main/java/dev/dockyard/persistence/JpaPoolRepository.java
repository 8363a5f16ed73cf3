package dev.dockyard.persistence;

import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolMember;
import dev.dockyard.pool.PoolRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The pools' repository on JPA ({@link PoolRepository} is the port the pools see). */
@ApplicationScoped
public class JpaPoolRepository implements PoolRepository {

    @PersistenceContext(unitName = "dockyard")
    EntityManager em;

    @Override
    public List<PoolDefinition> definitions() {
        return em.createQuery("select p from PoolDefinition p order by p.name", PoolDefinition.class).getResultList();
    }

    @Override
    public Optional<PoolDefinition> definition(String name) {
        return Optional.ofNullable(em.find(PoolDefinition.class, name));
    }

    @Override
    public void add(PoolDefinition definition) {
        em.persist(definition);
    }

    @Override
    public void remove(PoolDefinition definition) {
        em.remove(definition);
    }

    @Override
    public Map<String, Long> memberMemoryByNode() {
        Map<String, Long> memory = new HashMap<>();
        for (Object[] row : em.createQuery("select m.node, sum(d.memoryMb) from PoolMember m, PoolDefinition d "
                + "where d.name = m.pool group by m.node", Object[].class).getResultList()) {
            memory.put((String) row[0], ((Number) row[1]).longValue());
        }
        return memory;
    }

    @Override
    public List<PoolMember> members(String controlPlane) {
        return em.createQuery("select m from PoolMember m where m.controlPlane = :cp order by m.createdAt",
                PoolMember.class).setParameter("cp", controlPlane).getResultList();
    }

    @Override
    public Optional<PoolMember> member(String id) {
        return Optional.ofNullable(em.find(PoolMember.class, id));
    }

    @Override
    public void add(PoolMember member) {
        em.persist(member);
    }

    @Override
    public boolean delete(String id, PoolMember.Status status) {
        String jpql = "delete from PoolMember m where m.id = :id" + (status == null ? "" : " and m.status = :status");
        var query = em.createQuery(jpql).setParameter("id", id);
        if (status != null) {
            query.setParameter("status", status);
        }
        return query.executeUpdate() == 1;
    }

    @Override
    public boolean claim(String id, String shape) {
        return em.createQuery("delete from PoolMember m where m.id = :id and m.status = :ready and m.shape = :shape")
                .setParameter("id", id).setParameter("ready", PoolMember.Status.READY).setParameter("shape", shape)
                .executeUpdate() == 1;
    }

    @Override
    public long claimedLive(String pool) {
        return em.createQuery("select count(r) from SandboxRuntime r where r.pool = :pool and r.status not in :ended",
                        Long.class)
                .setParameter("pool", pool)
                .setParameter("ended", List.of(RuntimeStatus.STOPPED, RuntimeStatus.ERROR))
                .getSingleResult();
    }

    @Override
    public boolean runtimeExists(String id) {
        return em.find(SandboxRuntime.class, id) != null;
    }
}
