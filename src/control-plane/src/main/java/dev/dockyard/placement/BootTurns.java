package dev.dockyard.placement;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How many sandboxes a node boots at once. Booting is the costly moment of a sandbox's life (its
 * executor's JVM starts and warms up): a burst of a hundred cold provisions all booting together
 * on a two-core node starve one another until some miss their readiness limit and end in ERROR.
 * Here they take turns instead: a node boots at most its limit at once
 * ({@link DockyardConfig#maxConcurrentBoots(String)}), the others wait in line, and because a
 * boot's readiness limit starts counting only once it has its turn, a long line makes boots late,
 * never failed.
 *
 * <p>Three lines per node, each served only when the ones before it are empty: a runtime coming
 * back (its stopped sandbox started again after an engine restart, a hibernated one woken), then a
 * user's new provision, then the pool members. A sandbox coming back already holds somebody's work,
 * and its user is in the middle of a conversation: behind a burst of new provisions it waited
 * minutes, and its runtime was released before it served (the soak of 2026-12-02 16:20). A refill
 * never delays a request that somebody is waiting for. Within a line, first come, first served.
 */
@ApplicationScoped
public class BootTurns {

    private static final Logger LOG = Logger.getLogger(BootTurns.class.getName());

    /** Whose boot it is, in the order the lines are served. */
    public enum Line {
        /** A runtime that exists coming back: a stopped sandbox started again, a hibernated one woken. */
        RETURNING,
        /** A user's new runtime. */
        REQUEST,
        /** A warm pool's member. */
        POOL
    }

    /** What a boot waiting for its turn is told once, when it has to wait. */
    @FunctionalInterface
    public interface Waiting {
        /**
         * @param booting the boots the node runs now (its limit)
         * @param ahead   the boots waiting before this one
         */
        void waiting(int booting, int ahead);
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    @Inject
    DockyardConfig config;

    /**
     * Runs {@code boot} once {@code node} may boot one more sandbox, holding no thread while it
     * waits: a burst of hundreds of provisions or a pool of a hundred members waits in these lines,
     * not on the control plane's managed threads (which, all held by waiters, once starved the
     * node's health probe and made the node look down). With a turn free now, {@code boot} runs at
     * once in the caller's thread; otherwise {@code waiting} is told first (in the caller's thread)
     * and {@code boot} later runs on {@code threads}. The turn is closed when {@code boot} returns
     * or throws; {@code boot} may close it earlier, once the costly part is over.
     *
     * @param refused told, with the turn already closed, when {@code threads} would not take the
     *                 boot at the moment of its turn (shutting down, saturated): the boot never ran
     * @throws RuntimeException what {@code waiting} threw (nothing is then held or queued)
     */
    public void whenTurn(String node, Line line, Waiting waiting, Executor threads, Consumer<Turn> boot,
                         Consumer<RuntimeException> refused) {
        CompletableFuture<Turn> granted = nodes.computeIfAbsent(node, n -> new Node())
                .request(line, config.maxConcurrentBoots(node), waiting);
        if (granted.isDone()) {
            run(granted.join(), boot);
            return;
        }
        // completed by the thread that closes a turn: it only hands the boot on. Whatever goes wrong
        // here is caught: an exception in a future's dependent is kept by the future, unseen, and the
        // turn would never be returned
        granted.thenAccept(turn -> {
            try {
                threads.execute(() -> run(turn, boot));
            } catch (RuntimeException e) {
                turn.close();
                try {
                    refused.accept(e);
                } catch (RuntimeException | Error again) {
                    LOG.log(Level.WARNING, "A boot on node '" + node + "' that could not go on at its turn could "
                            + "not be ended either", again);
                }
            }
        });
    }

    /**
     * Waits in the caller's thread for a turn to boot on {@code node}, at most {@code within}: for a
     * boot the caller's request waits for anyway (a hibernated runtime woken by an action or a
     * resume), which would otherwise boot beside the node's limit and starve the boots in line. The
     * caller closes the turn once the costly part is over.
     *
     * @throws NoTurnException when no turn came within that time, or the thread was interrupted
     *                         (the caller has left the line)
     */
    public Turn await(String node, Line line, Duration within) {
        CompletableFuture<Turn> granted = nodes.computeIfAbsent(node, n -> new Node())
                .request(line, config.maxConcurrentBoots(node), null);
        try {
            return granted.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            Node.giveUp(granted);
            throw new NoTurnException("no turn to boot on node '" + node + "' came within " + within.toSeconds()
                    + " s: it boots at most " + config.maxConcurrentBoots(node) + " sandboxes at once");
        } catch (InterruptedException e) {
            Node.giveUp(granted);
            Thread.currentThread().interrupt();
            throw new NoTurnException("interrupted while waiting for a turn to boot on node '" + node + "'");
        } catch (ExecutionException e) {
            throw new IllegalStateException("a turn is never failed", e);
        }
    }

    /** A boot that waited longer than it could for its turn. */
    public static final class NoTurnException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoTurnException(String message) {
            super(message);
        }
    }

    private static void run(Turn turn, Consumer<Turn> boot) {
        try {
            boot.accept(turn);
        } finally {
            turn.close();
        }
    }

    /** The boots {@code node} runs now (for its report and tests). */
    public int booting(String node) {
        Node n = nodes.get(node);
        return n == null ? 0 : n.booting();
    }

    /** One boot's turn on a node: closing it (once; more closes do nothing) lets the next boot go. */
    public interface Turn extends AutoCloseable {
        @Override
        void close();
    }

    /** The turns of one node: its boots under way and its three lines. */
    static final class Node {
        private final ReentrantLock lock = new ReentrantLock();
        /** The lines, by {@link Line}'s order. */
        private final Map<Line, Deque<Waiter>> lines = new EnumMap<>(Line.class);
        private int booting;
        /** The limit the last taker read: settings are read per boot, so a changed one applies from the next. */
        private int limit = 1;

        Node() {
            for (Line line : Line.values()) {
                lines.put(line, new ArrayDeque<>());
            }
        }

        /**
         * A turn, completed once the node has room (at once when it has now; completed outside
         * the lock, by the thread whose turn ended). Cancelling the future before then leaves the
         * line; a turn granted to a future cancelled meanwhile is handed on.
         */
        CompletableFuture<Turn> request(Line line, int limitNow, Waiting waiting) {
            Waiter waiter = new Waiter();
            int booted;
            int ahead;
            List<Waiter> granted;
            lock.lock();
            try {
                limit = Math.max(1, limitNow);
                lines.get(line).addLast(waiter);
                granted = grant();
                booted = booting;
                ahead = -1;
                for (Line before : Line.values()) {
                    if (before.compareTo(line) <= 0) {
                        ahead += lines.get(before).size();
                    }
                }
            } finally {
                lock.unlock();
            }
            hand(granted);
            if (waiter.turn.isDone()) {
                return waiter.turn;
            }
            // told outside the lock: the caller records it, which may take a while
            if (waiting != null) {
                try {
                    waiting.waiting(booted, ahead);
                } catch (RuntimeException | Error e) {
                    giveUp(waiter.turn);
                    throw e;
                }
            }
            return waiter.turn;
        }

        /** The blocking form of {@link #request}, for tests: an interrupt leaves the line. */
        Turn take(Line line, int limitNow, Waiting waiting) throws InterruptedException {
            CompletableFuture<Turn> turn = request(line, limitNow, waiting);
            try {
                return turn.get();
            } catch (InterruptedException e) {
                giveUp(turn);
                throw e;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a turn is never failed", e);
            }
        }

        /** A caller that no longer wants its turn: out of the line, or the turn it got meanwhile handed on. */
        private static void giveUp(CompletableFuture<Turn> turn) {
            if (!turn.cancel(false)) {
                turn.join().close();
            }
        }

        /** One boot in line; its future completes with its turn. */
        private final class Waiter {
            final CompletableFuture<Turn> turn = new CompletableFuture<>();

            Waiter() {
                // a caller that gives up before its turn leaves the line (after a grant, hand() hands it on)
                turn.whenComplete((t, e) -> {
                    if (turn.isCancelled()) {
                        lock.lock();
                        List<Waiter> next;
                        try {
                            lines.values().forEach(l -> l.remove(this));
                            next = grant();
                        } finally {
                            lock.unlock();
                        }
                        hand(next);
                    }
                });
            }
        }

        /** With the lock held: takes free turns for the heads of the lines, in the lines' order. */
        private List<Waiter> grant() {
            List<Waiter> granted = new ArrayList<>();
            for (Deque<Waiter> line : lines.values()) {
                while (booting < limit && !line.isEmpty()) {
                    granted.add(line.removeFirst());
                    booting++;
                }
            }
            return granted;
        }

        /** Without the lock: gives the granted waiters their turns; one that gave up meanwhile hands its on. */
        private void hand(List<Waiter> granted) {
            for (Waiter waiter : granted) {
                Turn turn = turn();
                if (!waiter.turn.complete(turn)) {
                    turn.close();
                }
            }
        }

        private Turn turn() {
            return new Turn() {
                private boolean closed;

                @Override
                public void close() {
                    List<Waiter> next = List.of();
                    lock.lock();
                    try {
                        if (!closed) {
                            closed = true;
                            booting--;
                            next = grant();
                        }
                    } finally {
                        lock.unlock();
                    }
                    hand(next);
                }
            };
        }

        int booting() {
            lock.lock();
            try {
                return booting;
            } finally {
                lock.unlock();
            }
        }
    }
}
