package dev.dockyard.runtime.reconciliation;

import dev.dockyard.placement.BootTurns;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * Starts disconnected runtimes' stopped sandboxes again, in turn with the node's other boots
 * ({@link BootTurns}). An engine restart stops every container of the node at once, and the
 * reconciler's next pass finds all of their runtimes disconnected: started together, their
 * executors would all boot at once beside the provisions already waiting for their turns, and on a
 * two-core node none of them answers for minutes (the soak of 2026-12-02 02:13: nine Remote
 * Runtime API starts, asked around the engine's restart, still "waiting for the executor" after
 * OpenHands' 3 minutes). Here each revival waits in the line of runtimes coming back, which goes
 * before new provisions' ({@link BootTurns.Line#RETURNING}), keeps its turn until its sandbox
 * serves again (it is then reconnected at once, not a pass later) or for at most {@link #HOLD},
 * and a runtime whose revival is waiting or booting is neither started twice by the passes
 * meanwhile nor released before twice its grace ({@link #underWay}). A start the engine refuses
 * gives the turn back at once.
 */
@ApplicationScoped
public class SandboxRevivals {

    private static final Logger LOG = Logger.getLogger(SandboxRevivals.class.getName());

    /** The longest a revival keeps its turn waiting for its sandbox to serve: a boot's readiness limit. */
    static final Duration HOLD = Duration.ofSeconds(60);

    /** How often a revived sandbox is asked whether it serves while its revival holds the turn. */
    private static final long CHECK_MILLIS = 200;

    @Inject
    BootTurns turns;

    @Resource
    ManagedExecutorService executor;

    /** The threads revivals run on when not the managed ones (tests). */
    private final Executor threads;

    private final Duration hold;

    /** The runtimes whose revival is waiting for its turn or booting. */
    private final Set<String> underWay = ConcurrentHashMap.newKeySet();

    public SandboxRevivals() {
        this(null, null, HOLD);
    }

    /** For tests: the turns (none: each revival starts at once, in the caller's thread), the threads, the hold. */
    SandboxRevivals(BootTurns turns, Executor threads, Duration hold) {
        this.turns = turns;
        this.threads = threads;
        this.hold = hold;
    }

    /** Revivals that start at once in the caller's thread and check once: for tests of other rules. */
    static SandboxRevivals atOnce() {
        return new SandboxRevivals(null, null, Duration.ZERO);
    }

    /** What one revival does: start the sandbox, then tell whether it serves and record it reconnected. */
    interface Revival {
        /**
         * Starts the stopped sandbox again (its failures are its own to log).
         *
         * @return whether it started: a sandbox that did not has nothing to wait for, and the turn goes on at once
         */
        boolean start();

        /**
         * True once the revival is over: the sandbox serves and its runtime is recorded as
         * reconnected, or the runtime no longer waits for it (a pass reconnected it, it was
         * deleted or released), so that nobody's turn is held for nothing.
         */
        boolean over();
    }

    /**
     * Revives {@code runtimeId}'s sandbox on {@code node} once the node has a turn to boot; the
     * caller (a reconciler's pass) does not wait for it. Nothing happens when a revival of that
     * runtime is already under way.
     *
     * @return true when this call queued (or ran) a revival
     */
    public boolean revive(String runtimeId, String node, Revival revival) {
        if (!underWay.add(runtimeId)) {
            return false;
        }
        if (turns == null) {
            boot(runtimeId, revival);
            return true;
        }
        Executor threads = this.threads != null ? this.threads : executor;
        try {
            // the pass goes on at once: the turn may be a while coming, and the boot holds it
            threads.execute(() -> turns.whenTurn(node, BootTurns.Line.RETURNING, (booting, ahead) -> { },
                    threads, turn -> boot(runtimeId, revival), refused -> underWay.remove(runtimeId)));
            return true;
        } catch (RejectedExecutionException e) {
            underWay.remove(runtimeId);
            LOG.warning("The sandbox of disconnected runtime " + runtimeId + " was not started again now (" + e
                    + "); the next pass tries again");
            return false;
        }
    }

    /** True while {@code runtimeId}'s revival waits for its turn or boots: its runtime is not released meanwhile. */
    public boolean underWay(String runtimeId) {
        return underWay.contains(runtimeId);
    }

    /** With the turn: starts the sandbox and keeps the turn until it serves, or for the hold at most. */
    private void boot(String runtimeId, Revival revival) {
        try {
            if (!revival.start()) {
                return;
            }
            long deadline = System.nanoTime() + hold.toNanos();
            while (!revival.over() && System.nanoTime() - deadline < 0) {
                Thread.sleep(CHECK_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warning("Reviving the sandbox of runtime " + runtimeId + " failed: " + e.getMessage());
        } finally {
            underWay.remove(runtimeId);
        }
    }
}
