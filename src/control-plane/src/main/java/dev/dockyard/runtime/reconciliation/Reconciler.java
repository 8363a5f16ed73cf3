package dev.dockyard.runtime.reconciliation;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.cluster.Leases;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.placement.NodeHealth;
import dev.dockyard.pool.PoolKeeper;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Compares the backend's labelled sandboxes with the live runtimes this control plane owns (an
 * application service: {@link ReconcilerTimer} runs it at startup and every ten seconds, with no
 * transaction open; every record it makes is a short transaction of the journal's own).
 *
 * <ul>
 *   <li>A labelled sandbox whose runtime is not live is removed, once it is older than the grace
 *       period (so a sandbox whose runtime is being stopped right now is left to its owner).</li>
 *   <li>A runtime still starting that no provisioning of this control plane is working on (the
 *       control plane was restarted, or killed, mid-provisioning) becomes ERROR and its sandbox is
 *       removed.</li>
 *   <li>A READY or PAUSED runtime whose sandbox is gone or stopped becomes
 *       ERROR_RUNTIME_DISCONNECTED. A frozen sandbox is not a stopped one: a pause (or a
 *       migration's freeze) freezes the sandbox before it records anything. A HIBERNATED
 *       runtime's sandbox is stopped on purpose (recorded before it is stopped, READY only once
 *       woken): only its sandbox gone disconnects it.</li>
 *   <li>A READY runtime whose sandbox stays frozen for over a minute while nothing holds it (the
 *       pause, snapshot or migration that froze it was cut off) is recorded PAUSED, asleep: the
 *       next action thaws it.</li>
 *   <li>A PAUSED runtime whose sandbox runs, not frozen, for over a minute while nothing holds it
 *       (a pause whose answer was lost before the engine froze anything, a resume cut off after its
 *       thaw) has its sandbox frozen again, as it is recorded.</li>
 *   <li>A disconnected runtime whose sandbox stopped (an engine restart stops every container, a
 *       killed executor stops its own) is started again, its key handed anew, in the pass that
 *       disconnects it and in every later one while it stays stopped; one whose sandbox runs and answers {@code /ready}
 *       becomes READY (PAUSED if its sandbox is frozen: asleep, woken by the next action, when a
 *       remote node paused it on its own); one still disconnected after
 *       {@link DockyardConfig#disconnectedGrace(String)} of its node is released: ERROR, its sandbox removed, its
 *       conversation and quota freed.</li>
 *   <li>Workspace volumes left behind (a crash between a sandbox's removal and its volume's) are
 *       swept after the pass by {@link WorkspaceSweep}, under the same rules.</li>
 * </ul>
 * Sandboxes of warm pool members are left to the pool keeper. Each backend node is compared on
 * its own, against the runtimes placed on it. When a node cannot be listed, the pass does nothing
 * on that node: an incomplete view must never look like missing sandboxes. Runtimes another control plane owns (dockyard.instance) are left to it.
 *
 * <p>Several processes of one deployment (dockyard.instance) share its runtimes: one of them runs
 * the pass, the holder of the reconciler's lease, and stops mid-pass once its lease is no longer
 * fresh. A starting runtime is in flight while the process that provisions it (its
 * {@code provisioner}) is this one and still working on it, or another one whose heartbeat is alive;
 * a dead process's provisions are failed like an interrupted one's.
 */
@ApplicationScoped
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());
    private static final Set<RuntimeStatus> STARTING = EnumSet.of(RuntimeStatus.STARTING_RUNTIME,
            RuntimeStatus.BUILDING_RUNTIME, RuntimeStatus.RUNTIME_STARTED);
    private static final Set<RuntimeStatus> SERVING = EnumSet.of(RuntimeStatus.READY, RuntimeStatus.PAUSED);
    private static final Set<RuntimeStatus> DISCONNECTED = EnumSet.of(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED);
    /**
     * How long a READY runtime's sandbox may be seen frozen before the freeze is taken for one cut
     * off: a pause records within milliseconds, and a snapshot or migration of this process holds
     * the runtime's gate; this covers one of another process of the same deployment, whose gate this
     * one cannot see, for its first minute (one longer is recorded asleep and thawed by its end or
     * by the next action's resume either way). The same for a PAUSED runtime's sandbox seen running:
     * a resume thaws before it records READY, within seconds.
     */
    static final Duration FROZEN_WHILE_READY = Duration.ofSeconds(60);

    /**
     * A sighting older than this is not taken for the same state seen since: the runtime was not
     * looked at in between (its node skipped, the lease held by another process), so a resume may
     * have come and gone.
     */
    static final Duration SIGHTINGS_APART = Duration.ofSeconds(30);

    @Inject
    BackendNodes nodes;

    @Inject
    ProvisioningJournal journal;

    @Inject
    Provisioner provisioner;

    @Inject
    ExecutorClient executors;

    @Inject
    PoolKeeper pools;

    @Inject
    RuntimeSecrets secrets;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    Leases leases;

    @Inject
    NodeHealth health;

    @Inject
    RuntimeGates gates;

    @Inject
    SandboxRevivals revivals = SandboxRevivals.atOnce();

    /**
     * Disconnected runtimes whose stopped sandbox a revival started again, with when it last did:
     * the grace before such a runtime is released counts from then (see {@link #release}).
     */
    private final Map<String, Instant> startedAgainAt = new ConcurrentHashMap<>();

    /** READY runtimes whose sandbox a pass found frozen, since that first pass. */
    private final Map<String, Instant> frozenSince = new ConcurrentHashMap<>();

    /** PAUSED runtimes whose sandbox passes found running, not frozen: first and last seen so. */
    private final Map<String, Sighting> runningSince = new ConcurrentHashMap<>();

    /** When a state was first seen, and last, by passes one after another. */
    private record Sighting(Instant first, Instant last) {
    }

    /** Nodes whose list failed, since when (a backend's {@link RuntimeBackend#disconnectAfter}). */
    private final Map<String, Instant> unlistedSince = new ConcurrentHashMap<>();

    /** What one pass did, for logs and tests; {@code skipped} when some node's view was incomplete. */
    public record Report(int sandboxesSeen, int orphansRemoved, int interruptedFailed, int disconnected,
                         int reconnected, int released, boolean skipped) {

        static final Report NOTHING = new Report(0, 0, 0, 0, 0, 0, false);
        static final Report SKIPPED = new Report(0, 0, 0, 0, 0, 0, true);

        Report plus(Report other) {
            return new Report(sandboxesSeen + other.sandboxesSeen, orphansRemoved + other.orphansRemoved,
                    interruptedFailed + other.interruptedFailed, disconnected + other.disconnected,
                    reconnected + other.reconnected, released + other.released, skipped || other.skipped);
        }

        boolean changedAnything() {
            return orphansRemoved + interruptedFailed + disconnected + reconnected + released > 0;
        }
    }

    public Report pass() {
        return pass(() -> true);
    }

    /** One pass, acting only while {@code mayAct} (the reconciler's lease is fresh); skipped from where it is not. */
    public Report pass(BooleanSupplier mayAct) {
        List<SandboxRuntime> live;
        Set<String> members;
        try {
            // warm pool members before live runtimes: a claim turns a member into a runtime in one
            // transaction, so a sandbox claimed between the two reads is in the second
            members = pools.memberIds();
            live = journal.live().stream().filter(r -> r.isOwnedBy(config.instance())).toList();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Reconciliation skipped, the database cannot be read: " + e.getMessage());
            metrics.reconciled(true, new DockyardMetrics.ReconcilerChanges(0, 0, 0, 0, 0));
            return Report.SKIPPED;
        }
        Set<String> liveIds = new HashSet<>();
        live.forEach(r -> liveIds.add(r.id()));
        frozenSince.keySet().retainAll(liveIds);
        startedAgainAt.keySet().retainAll(liveIds);
        runningSince.keySet().retainAll(liveIds);
        Report total = Report.NOTHING;
        for (String node : nodes.names()) {
            total = total.plus(pass(node, live.stream().filter(r -> node.equals(nodes.named(r.node()))).toList(), members,
                    mayAct));
        }
        if (total.changedAnything()) {
            LOG.info("Reconciliation: " + total);
        }
        metrics.reconciled(total.skipped(), new DockyardMetrics.ReconcilerChanges(total.orphansRemoved(),
                total.interruptedFailed(), total.disconnected(), total.reconnected(), total.released()));
        return total;
    }

    /** One node: its sandboxes against the live runtimes placed on it. */
    private Report pass(String node, List<SandboxRuntime> live, Set<String> poolMembers, BooleanSupplier mayAct) {
        RuntimeBackend backend = nodes.on(node);
        if (backend.capabilities().unreachableWhenPingFails() && health.knownDown(node)) {
            // a node whose last health probe went unanswered: the pass spends no list (and its retries,
            // seconds per node for a remote or Kubernetes one) on it; as when a list fails, a remote
            // node's runtimes are disconnected after its disconnect-after, and it is reconciled once a
            // probe finds it back
            return Report.SKIPPED.plus(unanswered(node, backend, live, mayAct));
        }
        List<ManagedSandbox> sandboxes;
        try {
            sandboxes = backend.listManaged(config.instance());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Reconciliation of node '" + node + "' skipped, the view is incomplete: "
                    + e.getMessage());
            return Report.SKIPPED.plus(unanswered(node, backend, live, mayAct));
        }
        unlistedSince.remove(node);
        Instant now = clock.instant();
        Duration grace = config.reconcilerGrace();
        Map<String, SandboxRuntime> liveById = new HashMap<>();
        live.forEach(r -> liveById.put(r.id(), r));
        Map<String, ManagedSandbox> sandboxByRuntime = new HashMap<>();
        sandboxes.forEach(s -> sandboxByRuntime.put(s.runtimeId(), s));

        Report report = new Report(sandboxes.size(), 0, 0, 0, 0, 0, false);
        Set<String> removed = new HashSet<>();
        for (SandboxRuntime runtime : live) {
            if (!mayAct.getAsBoolean()) {
                return report.plus(Report.SKIPPED);
            }
            try {
                ManagedSandbox sandbox = sandboxByRuntime.get(runtime.id());
                if (STARTING.contains(runtime.status())) {
                    if (interrupted(runtime, backend, now, grace)) {
                        liveById.remove(runtime.id());
                        removed.add(runtime.containerName());
                        report = report.plus(new Report(0, 0, 1, 0, 0, 0, false));
                    }
                } else if (SERVING.contains(runtime.status())) {
                    if (disconnect(runtime, sandbox, node, backend)) {
                        report = report.plus(new Report(0, 0, 0, 1, 0, 0, false));
                        if (sandbox != null) {
                            // stopped, not gone (its executor died, or the engine restarted): started
                            // again in this pass, not the next, so the next finds it answering
                            revive(runtime, sandbox, backend);
                        }
                    } else if (frozenWhileReady(runtime, sandbox, backend, now)) {
                        report = report.plus(new Report(0, 0, 0, 0, 1, 0, false));
                    } else {
                        runningWhilePaused(runtime, sandbox, backend, now);
                    }
                } else if (runtime.status() == RuntimeStatus.HIBERNATED) {
                    if (sandbox == null && disconnect(runtime, null, node, backend)) {
                        report = report.plus(new Report(0, 0, 0, 1, 0, 0, false));
                    }
                } else if (runtime.status() == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
                    // read before anything this pass queues: a revival queued just now is not one under way
                    boolean reviving = revivals.underWay(runtime.id());
                    if (reconnect(runtime, sandbox, backend)) {
                        report = report.plus(new Report(0, 0, 0, 0, 1, 0, false));
                    } else if (release(runtime, sandbox, backend, node, now, reviving)) {
                        liveById.remove(runtime.id());
                        removed.add(runtime.containerName());
                        report = report.plus(new Report(0, 0, 0, 0, 0, 1, false));
                    } else if (sandbox != null && !sandbox.running()) {
                        revive(runtime, sandbox, backend);
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not reconcile runtime " + runtime.id(), e);
            }
        }

        for (ManagedSandbox sandbox : sandboxes) {
            // owned by a live runtime placed on this node: a migration's old sandbox, whose runtime
            // is now live elsewhere, is an orphan here
            // a warm pool member is the pool keeper's to check and replace
            boolean owned = sandbox.runtimeId() != null && (liveById.containsKey(sandbox.runtimeId())
                    || provisioner.isInFlight(sandbox.runtimeId()) || poolMembers.contains(sandbox.runtimeId()));
            if (!owned && !removed.contains(sandbox.name()) && sandbox.createdAt().plus(grace).isBefore(now)) {
                if (!mayAct.getAsBoolean()) {
                    return report.plus(Report.SKIPPED);
                }
                if (liveHereNow(sandbox.runtimeId(), node)) {
                    continue;
                }
                try {
                    backend.remove(sandbox.name());
                    report = report.plus(new Report(0, 1, 0, 0, 0, 0, false));
                    LOG.info("Removed orphan sandbox " + sandbox.name() + " on node '" + node + "' (runtime "
                            + sandbox.runtimeId() + " is not live there)");
                } catch (BackendException e) {
                    LOG.log(Level.WARNING, "Could not remove orphan sandbox " + sandbox.name(), e);
                }
            }
        }
        return report;
    }

    /**
     * Whether the runtime is live on this node as the database has it now. The pass's list of live
     * runtimes is as old as the pass, and a pass that starts stopped sandboxes again lasts longer
     * than the grace: a runtime registered since (here, or through another control plane) had its
     * sandbox taken for an orphan and removed (the soak's engine restart, 2026-11-30: a READY E2B
     * sandbox on node2, registered through the other control plane while the pass worked for 24 s).
     */
    private boolean liveHereNow(String runtimeId, String node) {
        return runtimeId != null && journal.find(runtimeId).filter(r -> r.status().isLive() && r.isOwnedBy(config.instance())
                && node.equals(nodes.named(r.node()))).isPresent();
    }

    /**
     * A node that cannot be listed: nothing is removed or failed on an incomplete view, but a
     * backend that says so ({@link RuntimeBackend#disconnectAfter}: a remote control plane) makes
     * its serving runtimes ERROR_RUNTIME_DISCONNECTED once it has not answered for that long,
     * counted from the first call it left unanswered ({@link RuntimeBackend#unansweredSince}) or
     * else from the first pass that could not list it. A later pass that lists it again
     * reconnects them (their sandboxes are found there).
     */
    private Report unanswered(String node, RuntimeBackend backend, List<SandboxRuntime> live, BooleanSupplier mayAct) {
        Optional<Duration> after = backend.capabilities().disconnectAfter();
        if (after.isEmpty()) {
            return Report.NOTHING;
        }
        Instant now = clock.instant();
        Instant unlisted = unlistedSince.computeIfAbsent(node, n -> now);
        // the outage began at the first call it did not answer (its health probe is more frequent
        // than these passes), not at the first pass that noticed
        Instant since = backend.unansweredSince().filter(unlisted::isAfter).orElse(unlisted);
        if (!since.plus(after.get()).isBefore(now)) {
            return Report.NOTHING;
        }
        Report report = Report.NOTHING;
        for (SandboxRuntime runtime : live) {
            if (!mayAct.getAsBoolean()) {
                return report;
            }
            if (SERVING.contains(runtime.status()) && journal.transitionIf(runtime.id(), EnumSet.of(runtime.status()),
                    RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, "The runtime is disconnected: its node '" + node
                            + "' has not answered for " + Duration.between(since, now).toSeconds() + " s; it is "
                            + "READY again once the node answers with its sandbox there")) {
                report = report.plus(new Report(0, 0, 0, 1, 0, 0, false));
            }
        }
        return report;
    }

    /** A starting runtime nobody here is bringing up any more: ERROR, sandbox removed. */
    private boolean interrupted(SandboxRuntime runtime, RuntimeBackend backend, Instant now, Duration grace) {
        if (inFlight(runtime) || !runtime.updatedAt().plus(grace).isBefore(now)) {
            return false;
        }
        if (!journal.transitionIf(runtime.id(), STARTING, RuntimeStatus.ERROR, "Provisioning was interrupted at "
                + runtime.status() + ": no control plane is bringing this runtime up any more (it was restarted "
                + "or killed); the sandbox was removed")) {
            return false;
        }
        backend.remove(runtime.containerName());
        return true;
    }

    /**
     * Whether some process is still bringing the runtime up: this one, or the one that recorded
     * itself as its provisioner while that one's heartbeat lives. An earlier start of an instance
     * restarted under the same id is not alive, whichever process asks.
     */
    private boolean inFlight(SandboxRuntime runtime) {
        if (provisioner.isInFlight(runtime.id())) {
            return true;
        }
        String owner = runtime.provisioner();
        return owner != null && !owner.equals(leases.me()) && leases.alive(owner);
    }

    /**
     * A serving runtime whose sandbox is gone or stopped (frozen is neither), or a hibernated one
     * whose sandbox is gone. The list is not one instant: a remote node is listed status by
     * status, so a sandbox resumed there between its PAUSED and its READY list is in neither. Its
     * absence is confirmed by asking for that sandbox alone before anything is recorded.
     */
    private boolean disconnect(SandboxRuntime runtime, ManagedSandbox sandbox, String node, RuntimeBackend backend) {
        String why;
        if (sandbox == null) {
            why = "its container is gone";
        } else if (!sandbox.running() && !sandbox.paused()) {
            why = "its container stopped";
        } else {
            return false;
        }
        // only a sandbox that runs or is frozen after all was missed; one stopped or in error (a
        // remote node lists its live runtimes only) is what the list said
        SandboxState.Phase now = backend.inspect(runtime.containerName()).phase();
        if (now == SandboxState.Phase.RUNNING || now == SandboxState.Phase.PAUSED) {
            return false;
        }
        // only from the status this pass saw: a pause or resume recorded since is not a disconnection
        return journal.transitionIf(runtime.id(), EnumSet.of(runtime.status()),
                RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, "The runtime is disconnected: " + why
                        + "; it is released " + config.disconnectedGrace(node).toSeconds()
                        + " s after this unless its sandbox answers again");
    }

    /**
     * A READY runtime whose sandbox is frozen: a pause freezes before it records PAUSED, and a
     * snapshot or migration freezes while it holds the runtime, so a pass may see this for a moment.
     * Seen for longer than {@link #FROZEN_WHILE_READY} and held by nothing in this process, the work
     * that froze it was cut off (the control plane was killed mid-pause or mid-snapshot, or a thaw
     * failed): every action would wait out its timeout on an executor that cannot run. It is recorded
     * as what it is, PAUSED, asleep as an idle pause leaves it, so the next action thaws it through
     * the resume that checks the executor answers. Held by the sleep gate while it records, so no
     * pause, resume, snapshot or migration of this process starts in between.
     */
    private boolean frozenWhileReady(SandboxRuntime runtime, ManagedSandbox sandbox, RuntimeBackend backend,
                                     Instant now) {
        if (runtime.status() != RuntimeStatus.READY || sandbox == null || !sandbox.paused()
                || backend.capabilities().pausesOnItsOwn()) {
            // a node that pauses on its own (a remote control plane's idle lifecycle) keeps the
            // runtime READY here by design: its next action resumes it there
            frozenSince.remove(runtime.id());
            return false;
        }
        Instant since = frozenSince.computeIfAbsent(runtime.id(), id -> now);
        if (!since.plus(FROZEN_WHILE_READY).isBefore(now)) {
            return false;
        }
        // actions may be running: they are the ones hanging on the frozen executor (CI's smoke,
        // 2026-11-30: back-to-back actions, each waiting out 150 s, kept an idle gate from ever coming)
        Optional<RuntimeGates.Pass> held = gates.enterSleepBesideActions(runtime.id());
        if (held.isEmpty()) {
            return false;
        }
        try (RuntimeGates.Pass pass = held.get()) {
            if (backend.inspect(runtime.containerName()).phase() != SandboxState.Phase.PAUSED) {
                // thawed since this pass listed it (a snapshot that just ended): nothing cut off
                frozenSince.remove(runtime.id());
                return false;
            }
            boolean recorded = journal.transitionIf(runtime.id(), EnumSet.of(RuntimeStatus.READY), RuntimeStatus.PAUSED,
                    "Found frozen while READY for over " + Duration.between(since, now).toSeconds() + " s (a pause, "
                            + "snapshot or migration was cut off before it finished): recorded as paused, and the "
                            + "next action resumes it", r -> r.pausedFor(PauseReason.IDLE));
            if (recorded) {
                frozenSince.remove(runtime.id());
                LOG.info("Runtime " + runtime.id() + " was READY with its sandbox frozen; recorded PAUSED (asleep)");
            }
            return recorded;
        }
    }

    /**
     * A PAUSED runtime whose sandbox runs, not frozen: a resume thaws before it records READY, so a
     * pass may see this for a moment. Seen for longer than {@link #FROZEN_WHILE_READY} and held by
     * nothing in this process, a pause recorded PAUSED though its freeze never happened (its answer
     * was lost before the engine froze anything, 2026-12-01), or a resume cut off after its thaw:
     * the sandbox spends what its pause was to save. It is frozen again, as it is recorded; the next
     * action resumes it as any paused one.
     */
    private void runningWhilePaused(SandboxRuntime runtime, ManagedSandbox sandbox, RuntimeBackend backend,
                                    Instant now) {
        if (runtime.status() != RuntimeStatus.PAUSED || sandbox == null || !sandbox.running() || sandbox.paused()
                || backend.capabilities().pausesOnItsOwn() || !backend.capabilities().freezes()) {
            // a node that cannot freeze (Kubernetes) hibernates its paused runtimes instead
            runningSince.remove(runtime.id());
            return;
        }
        Sighting seen = runningSince.merge(runtime.id(), new Sighting(now, now), (before, again) ->
                before.last().plus(SIGHTINGS_APART).isBefore(now) ? again : new Sighting(before.first(), now));
        Instant since = seen.first();
        if (!since.plus(FROZEN_WHILE_READY).isBefore(now)) {
            return;
        }
        Optional<RuntimeGates.Pass> held = gates.enterSleepIfIdle(runtime.id());
        if (held.isEmpty()) {
            return;
        }
        try (RuntimeGates.Pass pass = held.get()) {
            if (backend.inspect(runtime.containerName()).phase() != SandboxState.Phase.RUNNING
                    || journal.find(runtime.id()).map(SandboxRuntime::status).orElse(null) != RuntimeStatus.PAUSED) {
                // frozen, resumed or stopped since this pass listed it: nothing cut off
                runningSince.remove(runtime.id());
                return;
            }
            try {
                backend.pause(runtime.containerName());
            } catch (RuntimeException e) {
                // its processes would not all freeze, or the engine failed: the next pass tries again
                LOG.info("Runtime " + runtime.id() + " is PAUSED with its sandbox running; could not freeze it "
                        + "again yet: " + e.getMessage());
                return;
            }
            runningSince.remove(runtime.id());
            LOG.info("Runtime " + runtime.id() + " was PAUSED with its sandbox running for over "
                    + Duration.between(since, now).toSeconds() + " s; froze it again");
        }
    }

    /**
     * A disconnected runtime whose sandbox is there: READY once its executor answers, PAUSED if
     * frozen; a stopped one is started again (a later pass finds its executor up). A sandbox that
     * a node which {@link BackendCapabilities#pausesOnItsOwn pauses on its own} paused while the runtime was READY comes
     * back PAUSED but asleep, as the idle lifecycle leaves it: the next action wakes it.
     */
    private boolean reconnect(SandboxRuntime runtime, ManagedSandbox sandbox, RuntimeBackend backend) {
        if (sandbox == null) {
            return false;
        }
        if (sandbox.paused()) {
            if (backend.capabilities().pausesOnItsOwn() && !runtime.pausedOnRequest()) {
                // its node paused it meanwhile (a remote node's idle lifecycle, an admin there), not
                // its user: asleep, so the next action resumes it instead of being refused
                return journal.reconnect(runtime.id(), RuntimeStatus.PAUSED, runtime.executorUrl(),
                        "Reconnected: the sandbox is there again, paused by its node; the next action resumes it",
                        true);
            }
            return journal.reconnect(runtime.id(), RuntimeStatus.PAUSED, runtime.executorUrl(),
                    "Reconnected: the sandbox is there again, frozen");
        }
        if (!sandbox.running()) {
            // started again by the pass unless it is released first
            return false;
        }
        URI endpoint;
        try {
            endpoint = backend.endpoint(sandbox.name(), runtime.mainPort(config.executorPort()));
        } catch (BackendException e) {
            return false;
        }
        boolean answers;
        try {
            // the key goes only to the sandbox's own executor
            answers = backend.listensAt(sandbox.name(), endpoint) && executors.isServing(runtime, endpoint);
        } catch (RuntimeException e) {
            answers = false;
        }
        return answers && journal.reconnect(runtime.id(), RuntimeStatus.READY, endpoint.toString(),
                "Reconnected: the sandbox answers again");
    }

    /**
     * Starts the stopped sandbox of a disconnected runtime again once its node has a turn to boot
     * ({@link SandboxRevivals}), and records the runtime reconnected as soon as it serves.
     */
    private void revive(SandboxRuntime runtime, ManagedSandbox sandbox, RuntimeBackend backend) {
        int port = runtime.mainPort(config.executorPort());
        revivals.revive(runtime.id(), nodes.named(runtime.node()), new SandboxRevivals.Revival() {
            @Override
            public boolean start() {
                try {
                    backend.revive(sandbox.name(), runtime.sessionKey(),
                            runtime.program().map(SandboxProgram::user).orElse(config.sandboxUser()), port);
                    LOG.info("Started the stopped sandbox of disconnected runtime " + runtime.id() + " again");
                    startedAgain(runtime);
                    return true;
                } catch (BackendException e) {
                    // the message may quote the sandbox's last output, which may print its secrets
                    LOG.warning("Could not start the sandbox of disconnected runtime " + runtime.id() + " again: "
                            + secrets.redact(runtime, e.getMessage()));
                    return false;
                }
            }

            @Override
            public boolean over() {
                try {
                    if (journal.find(runtime.id()).map(SandboxRuntime::status).orElse(null)
                            != RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
                        return true;
                    }
                    URI endpoint = backend.endpoint(sandbox.name(), port);
                    // the key goes only to the sandbox's own executor
                    if (!backend.listensAt(sandbox.name(), endpoint) || !executors.isServing(runtime, endpoint)) {
                        return false;
                    }
                    journal.reconnect(runtime.id(), RuntimeStatus.READY, endpoint.toString(),
                            "Reconnected: the sandbox answers again");
                    return true;
                } catch (RuntimeException e) {
                    return false;
                }
            }
        });
    }

    /**
     * Records that a disconnected runtime's sandbox was started again: the grace before its release
     * counts from now, and its message says so. Under load an executor may take minutes to boot,
     * and a runtime released while it boots loses the files its user wrote (the soak of 2026-12-02
     * 16:25: three runtimes released 90 s after their sandboxes were started, the grace having
     * counted from the disconnection, and 11 acknowledged writes gone with them).
     */
    private void startedAgain(SandboxRuntime runtime) {
        startedAgainAt.put(runtime.id(), clock.instant());
        long grace = config.disconnectedGrace(nodes.named(runtime.node())).toSeconds();
        String message = "The runtime is disconnected: its container stopped, and was started again; it is released "
                + grace + " s after that start (" + 2 * grace + " s after the disconnection at the latest) unless its "
                + "sandbox answers";
        try {
            journal.update(runtime.id(), r -> {
                // reconnected, deleted or released meanwhile: that status's message stays
                if (r.status() == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
                    r.startedAgain(message);
                }
            });
        } catch (RuntimeException e) {
            // only the message: the grace counts from the start all the same
            LOG.fine("Could not record that the sandbox of runtime " + runtime.id() + " was started again: " + e);
        }
    }

    /**
     * Disconnected for longer than the grace: the runtime ends and lets its conversation and quota
     * go. The grace counts from its disconnection, or from when its stopped sandbox was last started
     * again; a runtime whose revival is waiting for its turn or booting ({@code reviving}) is not
     * released. Whatever happens, it is released twice the grace after its disconnection: a sandbox
     * that stops again each time it is started would otherwise hold its conversation, its quota and
     * the node's first turns to boot for good.
     */
    private boolean release(SandboxRuntime runtime, ManagedSandbox sandbox, RuntimeBackend backend, String node,
            Instant now, boolean reviving) {
        Duration grace = config.disconnectedGrace(node);
        Instant disconnectedAt = runtime.updatedAt();
        Instant since = startedAgainAt.getOrDefault(runtime.id(), disconnectedAt);
        boolean due = !reviving && (since.isAfter(disconnectedAt) ? since : disconnectedAt).plus(grace).isBefore(now);
        if (!due && !disconnectedAt.plus(grace.multipliedBy(2)).isBefore(now)) {
            return false;
        }
        if (!journal.transitionIf(runtime.id(), DISCONNECTED, RuntimeStatus.ERROR, "Released after "
                + grace.toSeconds() + " s disconnected (" + runtime.statusMessage() + ")"
                + (sandbox == null ? "" : "; its sandbox was removed"))) {
            return false;
        }
        if (sandbox != null) {
            backend.remove(sandbox.name());
        }
        return true;
    }
}
