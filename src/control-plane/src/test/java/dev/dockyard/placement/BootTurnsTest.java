package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.TestConfig;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A node boots at most its limit at once; the others wait in line, requests ahead of refills. */
class BootTurnsTest {

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** Takes a turn in another thread, after saying it was told to wait (or got it at once). */
    private Future<BootTurns.Turn> inLine(BootTurns.Node node, BootTurns.Line line, int limit, List<String> told,
                                         String who) throws InterruptedException {
        CountDownLatch queued = new CountDownLatch(1);
        Future<BootTurns.Turn> turn = threads.submit(() -> {
            try {
                return node.take(line, limit, (booting, ahead) -> {
                    told.add(who + " waits: " + booting + " booting, " + ahead + " ahead");
                    queued.countDown();
                });
            } finally {
                queued.countDown();
            }
        });
        assertTrue(queued.await(5, TimeUnit.SECONDS), who + " neither got a turn nor was told to wait");
        return turn;
    }

    @Test
    void aNodeBootsItsLimitAtOnceAndTheNextGoesWhenOneIsOver() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn first = node.take(BootTurns.Line.REQUEST, 2, (b, a) -> told.add("first waits"));
        BootTurns.Turn second = node.take(BootTurns.Line.REQUEST, 2, (b, a) -> told.add("second waits"));
        Future<BootTurns.Turn> third = inLine(node, BootTurns.Line.REQUEST, 2, told, "third");

        assertEquals(List.of("third waits: 2 booting, 0 ahead"), told);
        assertThrows(TimeoutException.class, () -> third.get(200, TimeUnit.MILLISECONDS));
        assertEquals(2, node.booting());

        first.close();
        third.get(5, TimeUnit.SECONDS).close();
        second.close();
        assertEquals(0, node.booting());
    }

    @Test
    void aRequestWaitsAheadOfEveryPoolRefill() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn booting = node.take(BootTurns.Line.POOL, 1, null);
        Future<BootTurns.Turn> refill = inLine(node, BootTurns.Line.POOL, 1, told, "refill");
        Future<BootTurns.Turn> request = inLine(node, BootTurns.Line.REQUEST, 1, told, "request");

        // the refill came first, yet the request is told nobody waits ahead of it
        assertEquals(List.of("refill waits: 1 booting, 0 ahead", "request waits: 1 booting, 0 ahead"), told);
        booting.close();
        BootTurns.Turn requestTurn = request.get(5, TimeUnit.SECONDS);
        assertThrows(TimeoutException.class, () -> refill.get(200, TimeUnit.MILLISECONDS));
        requestTurn.close();
        refill.get(5, TimeUnit.SECONDS).close();
        assertEquals(0, node.booting());
    }

    @Test
    void aBootInterruptedWhileWaitingLeavesTheLineWithoutATurn() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn booting = node.take(BootTurns.Line.REQUEST, 1, null);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        CountDownLatch queued = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                node.take(BootTurns.Line.REQUEST, 1, (b, a) -> queued.countDown());
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        assertTrue(queued.await(5, TimeUnit.SECONDS));
        Future<BootTurns.Turn> next = inLine(node, BootTurns.Line.REQUEST, 1, told, "next");

        waiter.interrupt();
        assertInstanceOf(InterruptedException.class, outcome.get(5, TimeUnit.SECONDS));
        assertEquals(1, node.booting());
        booting.close();
        // the turn went to the next in line, not to the boot that left it
        BootTurns.Turn nextTurn = next.get(5, TimeUnit.SECONDS);
        assertEquals(1, node.booting());
        nextTurn.close();
        assertEquals(0, node.booting());
    }

    @Test
    void aBootWhoseWaitCannotBeRecordedLeavesTheLineWithoutATurn() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        BootTurns.Turn booting = node.take(BootTurns.Line.REQUEST, 1, null);
        IllegalStateException failed = new IllegalStateException("the database is away");

        assertSame(failed, assertThrows(IllegalStateException.class,
                () -> node.take(BootTurns.Line.REQUEST, 1, (b, a) -> {
                    throw failed;
                })));
        booting.close();
        assertEquals(0, node.booting(), "the turn freed went to nobody: the failed boot left the line");
        node.take(BootTurns.Line.REQUEST, 1, null).close();
    }

    @Test
    void closingATurnTwiceFreesOneSlot() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        BootTurns.Turn one = node.take(BootTurns.Line.REQUEST, 2, null);
        BootTurns.Turn two = node.take(BootTurns.Line.REQUEST, 2, null);
        one.close();
        one.close();
        assertEquals(1, node.booting());
        two.close();
        assertEquals(0, node.booting());
    }

    @Test
    void eachNodeHasItsOwnLimitAndItsOwnLines() throws Exception {
        TestConfig config = new TestConfig();
        config.nodeMaxConcurrentBoots.put("small", 1);
        config.maxConcurrentBoots = 3;
        BootTurns turns = Placements.turns(config);
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn small = turns.take("small", BootTurns.Line.REQUEST, (b, a) -> told.add("small waits"));
        List<BootTurns.Turn> big = List.of(turns.take("big", BootTurns.Line.REQUEST, null),
                turns.take("big", BootTurns.Line.REQUEST, null), turns.take("big", BootTurns.Line.REQUEST, null));
        CountDownLatch queued = new CountDownLatch(1);
        Future<BootTurns.Turn> second = threads.submit(() -> turns.take("small", BootTurns.Line.POOL, (b, a) -> {
            told.add("second on small waits: " + b + " booting");
            queued.countDown();
        }));

        assertTrue(queued.await(5, TimeUnit.SECONDS), "the second boot on small was never told to wait");
        assertThrows(TimeoutException.class, () -> second.get(200, TimeUnit.MILLISECONDS));
        assertEquals(List.of("second on small waits: 1 booting"), told);
        assertEquals(3, turns.booting("big"));
        small.close();
        second.get(5, TimeUnit.SECONDS).close();
        big.forEach(BootTurns.Turn::close);
        assertEquals(0, turns.booting("small"));
        assertEquals(0, turns.booting("big"));
    }
}
