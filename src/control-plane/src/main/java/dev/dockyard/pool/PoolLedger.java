package dev.dockyard.pool;

import dev.dockyard.placement.WarmMembers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pools' record of intent and outcome, each method one short transaction of its own
 * ({@code REQUIRES_NEW}): no transaction is open while a sandbox boots.
 */
@ApplicationScoped
public class PoolLedger implements WarmMembers {

    @Inject
    PoolRepository pools;

    @Inject
    Clock clock;

    @Inject
    MemberRowLocks rows;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<PoolDefinition> definitions() {
        return pools.definitions();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<PoolDefinition> definition(String name) {
        return pools.definition(name);
    }

    /** Creates or redefines the pool; whether it was created. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean save(PoolSettings settings, String source) {
        Optional<PoolDefinition> existing = pools.definition(settings.name());
        if (existing.isPresent()) {
            existing.get().redefine(settings, source, clock.instant());
            return false;
        }
        pools.add(new PoolDefinition(settings, source, clock.instant()));
        return true;
    }

    /** Deletes the definition (its members are drained by the keeper); whether there was one. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean delete(String name) {
        Optional<PoolDefinition> existing = pools.definition(name);
        existing.ifPresent(pools::remove);
        return existing.isPresent();
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Map<String, Long> memoryByNode() {
        return rows.scanning(pools::memberMemoryByNode);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<PoolMember> members(String controlPlane) {
        return rows.scanning(() -> pools.members(controlPlane));
    }

    /** The intent, before the container exists. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void booting(PoolMember member) {
        pools.add(member);
    }

    /** The member's executor answers; false when its row was dropped meanwhile (drained): remove the sandbox. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean ready(String id, String containerId, String executorUrl, String runtimeImage, String imageId) {
        Optional<PoolMember> member = pools.member(id);
        member.ifPresent(m -> m.ready(containerId, executorUrl, runtimeImage, imageId, clock.instant()));
        return member.isPresent();
    }

    /**
     * Drops the member if it is still in {@code expected} (any when null); whether it did. Only
     * the caller that dropped the row may remove its sandbox: a claim may have won it instead.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean drop(String id, PoolMember.Status expected) {
        return pools.delete(id, expected);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public long claimedLive(String pool) {
        return pools.claimedLive(pool);
    }
}
