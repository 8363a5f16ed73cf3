package dev.dockyard.pool;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where pool definitions and their members are kept: the pools' port, implemented on JPA in
 * {@code persistence}. Every method joins the caller's transaction.
 */
public interface PoolRepository {

    /** Every declared pool, by name. */
    List<PoolDefinition> definitions();

    Optional<PoolDefinition> definition(String name);

    void add(PoolDefinition definition);

    void remove(PoolDefinition definition);

    /** The memory (MB) of every pool's members, booting or ready, by node; members of a deleted pool are not counted. */
    Map<String, Long> memberMemoryByNode();

    /** The members a control plane keeps, oldest first. */
    List<PoolMember> members(String controlPlane);

    Optional<PoolMember> member(String id);

    void add(PoolMember member);

    /** Deletes the member if it is in {@code status} (any when null); whether it did. */
    boolean delete(String id, PoolMember.Status status);

    /**
     * Claims the member: deletes its row if it is still READY and of {@code shape} (what the
     * request asked for: a member of a pool's former settings is no claim). Whether it did.
     */
    boolean claim(String id, String shape);

    /** Live runtimes that run in a sandbox claimed from {@code pool}. */
    long claimedLive(String pool);

    /** Whether a runtime row exists under the id (a claimed member lives on as one). */
    boolean runtimeExists(String id);
}
