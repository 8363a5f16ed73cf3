package dev.dockyard.runtime.provisioning;

import dev.dockyard.pool.MemberRowLocks;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Logger;

/**
 * Registers new runtimes, one user's together: group commit on the user's row lock.
 *
 * <p>A user's quota is counted under a lock on their row, so their registrations take turns:
 * twenty concurrent warm claims by one user (one OpenHands deployment, one key) queued twenty
 * transactions on that lock, each a count, an insert and a commit, and the last claim waited for
 * all of them. Here the registrations of one user that arrive while one of theirs is in the
 * database wait in a line, and the next of them to go registers the whole line in one
 * transaction ({@link ProvisioningJournal#registerAll}): one lock, one count, one commit. Users do
 * not wait for each other, and a lone request goes at once, alone.
 *
 * <p>A batch that claims several warm members takes its turn with scans of the member rows
 * ({@link MemberRowLocks}).
 *
 * <p>Should a batch fail as a whole (a unique-key race with another control plane, a lock
 * timeout), its registrations are tried again one by one, so each request sees its own outcome,
 * exception included, exactly as without batching.
 */
@ApplicationScoped
public class Admissions {

    private static final Logger LOG = Logger.getLogger(Admissions.class.getName());

    /** The most registrations in one transaction: a batch must not hold the row lock for long. */
    static final int MAX_BATCH = 32;

    @Inject
    ProvisioningJournal journal;

    @Inject
    MemberRowLocks memberRows;

    private final Map<String, Line> lines = new ConcurrentHashMap<>();

    /** A user's waiting registrations; {@code leading} while one of them is in the database for the line. */
    private static final class Line {
        final ConcurrentLinkedQueue<Waiting> queue = new ConcurrentLinkedQueue<>();
        boolean leading;
    }

    private record Waiting(ProvisioningJournal.Admission admission,
                           CompletableFuture<ProvisioningJournal.Registration> outcome) {
    }

    /**
     * Registers the runtime (claiming the warm member of {@code claimedShape}, when not null):
     * {@link ProvisioningJournal#register}'s and {@link ProvisioningJournal#registerClaim}'s
     * outcome, and their exceptions.
     */
    public ProvisioningJournal.Registration register(SandboxRuntime runtime, Role role, boolean replace,
                                                    String claimedShape) {
        Line line = lines.computeIfAbsent(runtime.userId(), u -> new Line());
        Waiting mine = new Waiting(new ProvisioningJournal.Admission(runtime, role, replace, claimedShape),
                new CompletableFuture<>());
        line.queue.add(mine);
        boolean interrupted = false;
        try {
            while (true) {
                synchronized (line) {
                    while (!mine.outcome().isDone() && line.leading) {
                        try {
                            line.wait();
                        } catch (InterruptedException e) {
                            // queued, so a leader may register it any moment: the outcome must be waited for
                            interrupted = true;
                        }
                    }
                    if (mine.outcome().isDone()) {
                        return outcome(mine);
                    }
                    line.leading = true;
                }
                try {
                    registerBatch(line);
                } finally {
                    synchronized (line) {
                        line.leading = false;
                        line.notifyAll();
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Takes up to {@link #MAX_BATCH} waiting registrations and settles every one of them. */
    private void registerBatch(Line line) {
        List<Waiting> batch = new ArrayList<>();
        for (Waiting next; batch.size() < MAX_BATCH && (next = line.queue.poll()) != null; ) {
            batch.add(next);
        }
        try {
            registerNow(batch);
        } finally {
            // whatever escaped (an Error): nobody may wait for ever for a registration no one makes
            batch.forEach(w -> w.outcome().completeExceptionally(
                    new IllegalStateException("the registration was not made")));
        }
    }

    private void registerNow(List<Waiting> batch) {
        if (batch.isEmpty()) {
            return;
        }
        if (batch.size() > 1) {
            try {
                List<ProvisioningJournal.Admission> admissions = batch.stream().map(Waiting::admission).toList();
                List<ProvisioningJournal.Registration> registrations =
                        admissions.stream().filter(a -> a.claimedShape() != null).count() > 1
                                ? memberRows.claimingSeveral(() -> journal.registerAll(admissions))
                                : journal.registerAll(admissions);
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).outcome().complete(registrations.get(i));
                }
                return;
            } catch (RuntimeException batchFailed) {
                // rolled back as a whole: one by one below, each with its own outcome. Said here,
                // since those may all succeed and batches that keep failing would go unnoticed; only
                // the exceptions' classes: their messages may quote the statement and its rows
                LOG.warning("A batch of " + batch.size() + " registrations of user "
                        + batch.get(0).admission().runtime().userId() + " rolled back (" + causes(batchFailed)
                        + "); registering them one by one");
            }
        }
        for (Waiting waiting : batch) {
            ProvisioningJournal.Admission a = waiting.admission();
            try {
                waiting.outcome().complete(a.claimedShape() != null
                        ? journal.registerClaim(a.runtime(), a.role(), a.replace(), a.claimedShape())
                        : journal.register(a.runtime(), a.role(), a.replace()));
            } catch (RuntimeException e) {
                waiting.outcome().completeExceptionally(e);
            }
        }
    }

    /** The classes of an exception and of its causes, outermost first. */
    private static String causes(Throwable e) {
        StringBuilder chain = new StringBuilder(e.getClass().getName());
        Throwable cause = e.getCause();
        for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
            chain.append(" < ").append(cause.getClass().getName());
        }
        return chain.toString();
    }

    private static ProvisioningJournal.Registration outcome(Waiting waiting) {
        try {
            return waiting.outcome().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
