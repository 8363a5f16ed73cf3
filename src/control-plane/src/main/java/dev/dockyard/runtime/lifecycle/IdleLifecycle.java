package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The idle lifecycle (an application service: {@link IdleLifecycleTimer} sweeps with it every
 * {@code dockyard.lifecycle.sweep-interval} seconds, with no transaction open; every record is a
 * short transaction of the journal's own). For each live runtime this control plane owns:
 *
 * <ul>
 *   <li>its TTL ({@code ttlSeconds}, from its creation) reached: STOPPED and its sandbox removed,
 *       whatever it is doing, keepAlive or not: the TTL is the hard cap on its life;</li>
 *   <li>READY and its end time passed ({@link SandboxRuntime#endsAt()}, E2B's timeout, which its
 *       client moves): STOPPED and its sandbox removed, or PAUSED ({@link PauseReason#END}) when it
 *       pauses at its end ({@link EndAction#PAUSE}). The end time is a point in time that only a
 *       READY runtime is ended at: a paused one waits to be resumed (with a new end time) or deleted;</li>
 *   <li>READY and untouched (no action, no transfer, no request through its service URL, see
 *       {@link Activity}) for its idle timeout: PAUSED for idleness, and the next action resumes
 *       it transparently ({@link #wakeForAction});</li>
 *   <li>PAUSED (for any reason) for {@code dockyard.lifecycle.hibernate-after}: HIBERNATED, its
 *       container stopped ({@link Hibernation}); an action wakes it unless the user had paused it.</li>
 * </ul>
 * A {@code keepAlive} runtime is never paused or hibernated by the sweep, nor is a runtime running
 * its image's own program (its clients reach it through its service URL, which wakes nothing).
 * A runtime is put to sleep only when nothing holds its gate ({@link RuntimeGates#enterSleepIfIdle}):
 * never while an action, a transfer, a pause, a resume or a migration is under way; such a
 * runtime is looked at again on the next sweep.
 */
@ApplicationScoped
public class IdleLifecycle {

    private static final Logger LOG = Logger.getLogger(IdleLifecycle.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    @Inject
    RuntimeGates gates;

    @Inject
    PauseResume pauses;

    @Inject
    Hibernation hibernation;

    @Inject
    Activity activity;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    /** What the sweep does with a runtime now. */
    enum Decision { NOTHING, STOP, END, PAUSE_AT_END, PAUSE, HIBERNATE }

    /** What one sweep did, for logs and tests (a runtime stopped or paused at its end time counts as stopped or paused). */
    public record Report(int stopped, int paused, int hibernated) {
        boolean changedAnything() {
            return stopped + paused + hibernated > 0;
        }
    }

    /**
     * The rule, without side effects: TTL first (a hard cap), then the end time of a READY runtime,
     * then idleness of a READY runtime, then hibernation of a PAUSED one.
     */
    static Decision decide(SandboxRuntime runtime, Instant lastActive, Instant now, Duration hibernateAfter) {
        if (runtime.ttlSeconds() > 0 && !now.isBefore(runtime.createdAt().plusSeconds(runtime.ttlSeconds()))) {
            return Decision.STOP;
        }
        if (runtime.status() == RuntimeStatus.READY && runtime.endsAt().filter(end -> !now.isBefore(end)).isPresent()) {
            return runtime.atEnd() == EndAction.PAUSE ? Decision.PAUSE_AT_END : Decision.END;
        }
        if (runtime.keepAlive() || runtime.program().isPresent()) {
            return Decision.NOTHING;
        }
        if (runtime.status() == RuntimeStatus.READY && runtime.idleTimeoutSeconds() > 0
                && !now.isBefore(lastActive.plusSeconds(runtime.idleTimeoutSeconds()))) {
            return Decision.PAUSE;
        }
        if (runtime.status() == RuntimeStatus.PAUSED && !hibernateAfter.isZero()
                && !now.isBefore(runtime.updatedAt().plus(hibernateAfter))) {
            return Decision.HIBERNATE;
        }
        return Decision.NOTHING;
    }

    /** One sweep over the live runtimes this control plane owns. */
    public Report sweep() {
        List<SandboxRuntime> live;
        try {
            live = journal.live().stream().filter(r -> r.isOwnedBy(config.instance())).toList();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Idle lifecycle sweep skipped, the database cannot be read: " + e.getMessage());
            return new Report(0, 0, 0);
        }
        Set<String> liveIds = live.stream().map(SandboxRuntime::id).collect(Collectors.toSet());
        activity.retainOnly(liveIds);
        hibernation.retainOnly(liveIds);
        int stopped = 0;
        int paused = 0;
        int hibernated = 0;
        for (SandboxRuntime runtime : live) {
            try {
                switch (decide(runtime, activity.lastActive(runtime), clock.instant(), config.hibernateAfter())) {
                    case STOP, END -> stopped += expire(runtime) ? 1 : 0;
                    case PAUSE -> paused += putToSleep(runtime.id(), Decision.PAUSE) ? 1 : 0;
                    case PAUSE_AT_END -> paused += putToSleep(runtime.id(), Decision.PAUSE_AT_END) ? 1 : 0;
                    case HIBERNATE -> hibernated += putToSleep(runtime.id(), Decision.HIBERNATE) ? 1 : 0;
                    case NOTHING -> persistActivity(runtime);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Idle lifecycle of runtime " + runtime.id() + " failed: " + e.getMessage(), e);
            }
        }
        Report report = new Report(stopped, paused, hibernated);
        if (report.changedAnything()) {
            LOG.info("Idle lifecycle: " + report);
        }
        return report;
    }

    /**
     * Its end now, rather than at the next sweep, if its TTL or its end time has passed: a client
     * that reads a runtime past its end (E2B's {@code getInfo} after its timeout) finds it ended.
     * Answers whether it did anything.
     */
    public boolean endIfDue(String runtimeId) {
        SandboxRuntime runtime = journal.find(runtimeId).orElse(null);
        if (runtime == null || !runtime.status().isLive()) {
            return false;
        }
        return switch (decide(runtime, activity.lastActive(runtime), clock.instant(), config.hibernateAfter())) {
            case STOP, END -> expire(runtime);
            case PAUSE_AT_END -> putToSleep(runtimeId, Decision.PAUSE_AT_END);
            default -> false;
        };
    }

    /**
     * TTL or end time reached: STOPPED first (provisioning still at work on it backs off), then its
     * sandbox removed.
     */
    private boolean expire(SandboxRuntime runtime) {
        if (gates.isMigrating(runtime.id())) {
            // the migration's new runtime is on its way; the next sweep stops whichever then holds it
            return false;
        }
        Instant now = clock.instant();
        long lived = Duration.between(runtime.createdAt(), now).toSeconds();
        boolean ttl = runtime.ttlSeconds() > 0 && !now.isBefore(runtime.createdAt().plusSeconds(runtime.ttlSeconds()));
        journal.stop(runtime.id(), (ttl ? "Stopped: TTL of " + runtime.ttlSeconds() + " s reached"
                : "Stopped: its end time " + runtime.endsAt().orElseThrow() + " passed") + " (created " + lived
                + " s ago); its sandbox was removed");
        nodes.on(runtime.node()).remove(runtime.containerName());
        activity.awake(runtime.id());
        return true;
    }

    /**
     * Pauses (for idleness or at its end time) or hibernates the runtime if nothing holds it and the rule still says
     * so once it is held (an action may have come in meanwhile).
     */
    private boolean putToSleep(String runtimeId, Decision decision) {
        Optional<RuntimeGates.Pass> held = gates.enterSleepIfIdle(runtimeId);
        if (held.isEmpty()) {
            return false;
        }
        try (RuntimeGates.Pass pass = held.get()) {
            SandboxRuntime runtime = journal.find(runtimeId).orElse(null);
            Instant now = clock.instant();
            Instant lastActive = runtime == null ? now : activity.lastActive(runtime);
            if (runtime == null || decide(runtime, lastActive, now, config.hibernateAfter()) != decision) {
                return false;
            }
            Instant toPersist = activity.toPersist(runtime);
            if (toPersist != null) {
                journal.activeAt(runtimeId, toPersist);
            }
            // before the freeze: an action waiting at the gate must look again once it is let in
            activity.asleep(runtimeId);
            try {
                if (decision == Decision.PAUSE) {
                    long idle = Duration.between(lastActive, now).toSeconds();
                    pauses.pauseAdmitted(runtimeId, PauseReason.IDLE, "Idle for " + idle + " s (idle timeout "
                            + runtime.idleTimeoutSeconds() + " s): paused");
                } else if (decision == Decision.PAUSE_AT_END) {
                    pauses.pauseAdmitted(runtimeId, PauseReason.END, "Its end time " + runtime.endsAt().orElseThrow()
                            + " passed: paused");
                } else {
                    long pausedFor = Duration.between(runtime.updatedAt(), now).toSeconds();
                    hibernation.hibernateHeld(runtimeId, "Hibernated after " + pausedFor + " s paused (hibernate-after "
                            + config.hibernateAfter().toSeconds() + " s)");
                }
                return true;
            } catch (RuntimeException e) {
                activity.awake(runtimeId);
                throw e;
            }
        }
    }

    private void persistActivity(SandboxRuntime runtime) {
        Instant toPersist = activity.toPersist(runtime);
        if (toPersist != null && runtime.status() == RuntimeStatus.READY) {
            journal.activeAt(runtime.id(), toPersist);
        }
    }

    /**
     * Before an action or a transfer: wakes the runtime if the idle lifecycle put it to sleep
     * (paused for idleness, or hibernated unless the user had paused it), transparently, and
     * answers it as it is then. A runtime the user paused is answered as it is: the caller refuses.
     *
     * @throws RuntimeGates.RuntimeBusyException while a migration holds it
     */
    public SandboxRuntime wakeForAction(String runtimeId) {
        try (RuntimeGates.Pass pass = gates.enterLifecycle(runtimeId)) {
            SandboxRuntime runtime = journal.find(runtimeId)
                    .orElseThrow(() -> new IllegalStateException("runtime " + runtimeId + " vanished"));
            if (!runtime.pauseReason().wokenByAction()
                    || (runtime.status() != RuntimeStatus.PAUSED && runtime.status() != RuntimeStatus.HIBERNATED)) {
                if (runtime.status() == RuntimeStatus.READY) {
                    activity.awake(runtimeId);
                }
                return runtime;
            }
            long asleepFor = Duration.between(runtime.updatedAt(), clock.instant()).toSeconds();
            try {
                return pauses.resumeAdmitted(runtimeId, "Woken by an action after " + asleepFor
                        + " s paused for idleness: resumed", "Woken by an action");
            } catch (IllegalTransitionException e) {
                // it changed since it was read (the reconciler disconnected it as its engine restarted, a
                // delete stopped it): answered as it is now, which the caller refuses as not ready (the
                // soak of 2026-12-02 08:27 met a 500 here)
                return journal.find(runtimeId).orElseThrow(() -> e);
            }
        }
    }
}
