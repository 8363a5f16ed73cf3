package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.TestConfig;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
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
        servedOneAfterAnother(List.of(request, refill));
        assertEquals(0, node.booting());
    }

    @Test
    void aRuntimeComingBackWaitsAheadOfNewRequestsAndPoolRefills() throws Exception {
        // an engine restart stopped a sandbox that holds somebody's work while new provisions wait:
        // behind them it waited minutes and was released before it served (soak 2026-12-02 16:20)
        BootTurns.Node node = new BootTurns.Node();
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn booting = node.take(BootTurns.Line.REQUEST, 1, null);
        Future<BootTurns.Turn> refill = inLine(node, BootTurns.Line.POOL, 1, told, "refill");
        Future<BootTurns.Turn> request = inLine(node, BootTurns.Line.REQUEST, 1, told, "request");
        Future<BootTurns.Turn> revival = inLine(node, BootTurns.Line.RETURNING, 1, told, "revival");

        assertEquals(List.of("refill waits: 1 booting, 0 ahead", "request waits: 1 booting, 0 ahead",
                "revival waits: 1 booting, 0 ahead"), told);
        booting.close();
        servedOneAfterAnother(List.of(revival, request, refill));
        assertEquals(0, node.booting());
    }

    @Test
    void aBootIsToldOfEveryBootWaitingInItsLineAndTheLinesBefore() throws Exception {
        BootTurns.Node node = new BootTurns.Node();
        List<String> told = new CopyOnWriteArrayList<>();
        BootTurns.Turn booting = node.take(BootTurns.Line.POOL, 1, null);
        List<Future<BootTurns.Turn>> waiting = new ArrayList<>();
        waiting.add(inLine(node, BootTurns.Line.RETURNING, 1, told, "revival"));
        waiting.add(inLine(node, BootTurns.Line.REQUEST, 1, told, "request 1"));
        waiting.add(inLine(node, BootTurns.Line.POOL, 1, told, "refill"));
        waiting.add(inLine(node, BootTurns.Line.REQUEST, 1, told, "request 2"));

        assertEquals(List.of("revival waits: 1 booting, 0 ahead", "request 1 waits: 1 booting, 1 ahead",
                "refill waits: 1 booting, 2 ahead", "request 2 waits: 1 booting, 2 ahead"), told);
        booting.close();
        servedOneAfterAnother(List.of(waiting.get(0), waiting.get(1), waiting.get(3), waiting.get(2)));
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

    /** Turns of nodes that boot one sandbox at a time. */
    private static BootTurns oneAtATime() {
        TestConfig config = new TestConfig();
        config.maxConcurrentBoots = 1;
        return Placements.turns(config);
    }

    @Test
    void eachNodeHasItsOwnLimit() {
        TestConfig config = new TestConfig();
        config.nodeMaxConcurrentBoots.put("small", 1);
        config.maxConcurrentBoots = 3;
        BootTurns turns = Placements.turns(config);
        Deque<Runnable> later = new ArrayDeque<>();
        List<String> log = new ArrayList<>();

        // each boot below starts the next inside its own: all are booting at once until one returns
        turns.whenTurn("big", BootTurns.Line.REQUEST, (b, a) -> log.add("big 1 waits"), later::add, one ->
                turns.whenTurn("big", BootTurns.Line.REQUEST, (b, a) -> log.add("big 2 waits"), later::add, two ->
                        turns.whenTurn("big", BootTurns.Line.REQUEST, (b, a) -> log.add("big 3 waits"), later::add,
                                three -> {
                                    log.add("3 booting on big");
                                    turns.whenTurn("small", BootTurns.Line.REQUEST, null, later::add,
                                            small -> log.add("small boots"), e -> log.add("refused"));
                                    turns.whenTurn("big", BootTurns.Line.POOL, (b, a) -> log.add("big 4 waits: "
                                            + b + " booting"), later::add, four -> log.add("big 4 boots"),
                                            e -> log.add("refused"));
                                }, e -> log.add("refused")), e -> log.add("refused")), e -> log.add("refused"));

        assertEquals(List.of("3 booting on big", "small boots", "big 4 waits: 3 booting"), log);
        assertEquals(1, later.size(), "the fourth went on once the third was over");
        later.poll().run();
        assertEquals("big 4 boots", log.get(log.size() - 1));
        assertEquals(0, turns.booting("big"));
        assertEquals(0, turns.booting("small"));
    }

    @Test
    void aBootInLineHoldsNoThreadAndGoesOnOnTheExecutorAtItsTurn() {
        BootTurns turns = oneAtATime();
        Deque<Runnable> later = new ArrayDeque<>();
        List<String> log = new ArrayList<>();
        String caller = Thread.currentThread().getName();

        turns.whenTurn("node", BootTurns.Line.REQUEST, (b, a) -> log.add("first waits"), later::add, first -> {
            log.add("first boots" + (Thread.currentThread().getName().equals(caller) ? " in the caller's thread" : ""));
            for (int i = 0; i < 100; i++) {
                int n = i;
                turns.whenTurn("node", BootTurns.Line.POOL, (b, a) -> {
                    if (n == 0 || n == 99) {
                        log.add("refill " + n + " waits: " + b + " booting, " + a + " ahead");
                    }
                }, later::add, turn -> log.add("refill " + n + " boots"), e -> log.add("refused"));
            }
            log.add("first booted");
        }, e -> log.add("refused"));

        assertEquals(List.of("first boots in the caller's thread", "refill 0 waits: 1 booting, 0 ahead",
                "refill 99 waits: 1 booting, 99 ahead", "first booted"), log);
        // a hundred in line, and only the head, whose turn came, was handed to a thread
        assertEquals(1, later.size());
        assertEquals(1, turns.booting("node"));
        for (int i = 0; i < 200 && !later.isEmpty(); i++) {
            later.poll().run();
        }
        assertEquals("refill 0 boots", log.get(4));
        assertEquals("refill 99 boots", log.get(log.size() - 1));
        assertEquals(104, log.size());
        assertEquals(0, turns.booting("node"));
    }

    @Test
    void aTurnNoThreadTakesIsGivenBackAndItsBootToldSo() {
        BootTurns turns = oneAtATime();
        List<String> log = new ArrayList<>();
        Executor refusing = task -> {
            throw new RejectedExecutionException("shutting down");
        };

        turns.whenTurn("node", BootTurns.Line.REQUEST, null, refusing, first ->
                turns.whenTurn("node", BootTurns.Line.REQUEST, null, refusing, second -> log.add("second boots"),
                        e -> log.add("second refused: " + e.getMessage())), e -> log.add("first refused"));

        assertEquals(List.of("second refused: shutting down"), log);
        assertEquals(0, turns.booting("node"), "the turn nobody could use went back");
        turns.whenTurn("node", BootTurns.Line.REQUEST, null, refusing, third -> log.add("third boots"),
                e -> log.add("third refused"));
        assertEquals("third boots", log.get(1));
    }

    /**
     * On a node of one slot: each waiting boot gets its turn in this order, the next one not
     * before the one ahead of it gives its turn back.
     */
    private static void servedOneAfterAnother(List<Future<BootTurns.Turn>> order) throws Exception {
        for (int i = 0; i < order.size(); i++) {
            BootTurns.Turn turn = order.get(i).get(5, TimeUnit.SECONDS);
            if (i + 1 < order.size()) {
                Future<BootTurns.Turn> next = order.get(i + 1);
                assertThrows(TimeoutException.class, () -> next.get(200, TimeUnit.MILLISECONDS),
                        "boot " + (i + 2) + " got its turn while boot " + (i + 1) + " held the only one");
            }
            turn.close();
        }
    }
}
