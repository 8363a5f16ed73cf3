package dev.dockyard.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The claim queue: each member handed out once, whatever a keeper pass read before the claim. */
class WarmPoolsTest {

    private final WarmPools pools = new WarmPools();

    {
        pools.clock = Clock.systemUTC();
    }

    private static WarmSandbox member(String id) {
        return new WarmSandbox(id, "p", "shape", "key", "cid", "http://127.0.0.1:1", "img", Instant.EPOCH);
    }

    @Test
    void shouldNotQueueAHandedOutMemberAgainFromAStaleKeeperPass() {
        pools.retain("p", List.of(member("a"), member("b")), Set.of());
        WarmSandbox first = pools.next("p").orElseThrow();

        // a keeper pass that read the rows before the claim committed still lists the member
        pools.retain("p", List.of(member("a"), member("b")), Set.of());
        pools.offer(first);

        WarmSandbox second = pools.next("p").orElseThrow();
        assertTrue(!second.id().equals(first.id()));
        assertTrue(pools.next("p").isEmpty(), "two members, two candidates, whatever the passes did");
    }

    @Test
    void shouldPutARefusedCandidateFirstInLine() {
        pools.retain("p", List.of(member("a"), member("b")), Set.of());
        WarmSandbox first = pools.next("p").orElseThrow();

        pools.putBack(first);

        assertEquals(first.id(), pools.next("p").orElseThrow().id());
    }

    @Test
    void shouldForgetHandedOutMembersOnceTheirRowsAreGone() {
        pools.retain("p", List.of(member("a")), Set.of());
        WarmSandbox claimed = pools.next("p").orElseThrow();
        pools.forgetHandedOutExcept(Set.of());

        // were the same id READY again (it cannot be: ids are new), it could be queued
        pools.retain("p", List.of(claimed), Set.of());
        assertEquals(1, pools.queued("p"));
    }

    /**
     * A keeper pass reads the rows while a member boots; the boot ends (READY, queued) before the
     * pass sets the queue: the pass must leave it queued, or it stays unclaimable while counted
     * alive until the next pass that queues (a quick pass queues nothing).
     */
    @Test
    void shouldLeaveQueuedAMemberThePassReadWhileItBooted() {
        pools.retain("p", List.of(member("a")), Set.of());
        pools.offer(member("b"));

        pools.keepOnly("p", List.of(member("a")), Set.of("b"));
        assertEquals(2, pools.queued("p"), "the quick pass leaves b");
        pools.retain("p", List.of(member("a")), Set.of("b"));
        assertEquals(2, pools.queued("p"), "and so does the timer's");
        pools.keepOnly("p", List.of(member("a")), Set.of());
        assertEquals(1, pools.queued("p"), "a member whose row is gone leaves the queue");
    }

    @Test
    void shouldCountAMissWhenEmpty() {
        assertTrue(pools.next("p").isEmpty());
        assertEquals(1, pools.misses("p"));
    }
}
