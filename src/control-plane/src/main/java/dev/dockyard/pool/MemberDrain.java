package dev.dockyard.pool;

import dev.dockyard.backend.BackendNodes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a member leaves its pool unclaimed: its row is dropped first, and only if nothing claimed
 * it meanwhile (the database decides between a drain and a claim), then it leaves the claim queue
 * and its sandbox is removed. A sandbox that cannot be removed now is left to the reconciler.
 */
@ApplicationScoped
public class MemberDrain {

    private static final Logger LOG = Logger.getLogger(MemberDrain.class.getName());

    @Inject
    PoolLedger ledger;

    @Inject
    WarmPools pools;

    @Inject
    BackendNodes nodes;

    /** Drops the member's row if nothing claimed it meanwhile, then removes its sandbox; whether it did. */
    boolean drain(PoolMember member, String why) {
        try {
            if (!ledger.drop(member.id(), member.status())) {
                return false;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Pool '" + member.pool() + "': could not drop member " + member.id() + " ("
                    + why + "); the next pass tries again: " + e.getMessage());
            return false;
        }
        pools.forget(member.id());
        LOG.info("Pool '" + member.pool() + "': removed warm sandbox " + member.containerName() + " because " + why);
        removeQuietly(member.node(), member.containerName());
        return true;
    }

    /** Removes a warm sandbox whose row is gone (or never became a member's); the reconciler retries a failure. */
    void removeQuietly(String node, String name) {
        try {
            nodes.on(node).remove(name);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove warm sandbox " + name + "; the reconciler will", e);
        }
    }
}
