package dev.dockyard.runtime.reconciliation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.CapturedSnapshot;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.WorkspaceVolume;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WorkspaceSweepTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final TestConfig config = new TestConfig();
    private final Set<String> protectedNames = new HashSet<>();
    private final Volumes backend = new Volumes();
    private final WorkspaceSweep sweep = new WorkspaceSweep();
    private final List<Snapshot> recorded = new ArrayList<>();
    /** Recorded after the pass read the records: found only when asked one by one. */
    private final Set<String> recordedSince = new HashSet<>();
    private final FakeLeaseStore leaseStore = new FakeLeaseStore();
    private final ControlPlaneInstance me = ControlPlaneInstance.of("cp1", Duration.ofSeconds(30));

    /** A backend holding nothing but workspace volumes, and the parts of snapshots. */
    private static final class Volumes extends FakeBackend {
        final List<WorkspaceVolume> volumes = new ArrayList<>();
        final List<String> removed = new ArrayList<>();
        final List<CapturedSnapshot> captures = new ArrayList<>();
        final List<String> sweptInOrder = new ArrayList<>();
        boolean unlistable;

        @Override
        public synchronized int sweepHelpers(String controlPlane, Instant cutoff) {
            sweptInOrder.add(controlPlane + "'s helpers before " + cutoff);
            return 0;
        }

        @Override
        public synchronized int sweepCaptures(String controlPlane, Predicate<CapturedSnapshot> abandoned) {
            sweptInOrder.add("captures");
            List<CapturedSnapshot> gone = captures.stream().filter(abandoned).toList();
            captures.removeAll(gone);
            gone.forEach(c -> removed.add(c.snapshotId()));
            return gone.size();
        }

        @Override
        public synchronized List<WorkspaceVolume> listWorkspaces(String controlPlane) {
            if (unlistable) {
                throw new BackendException("engine down");
            }
            return List.copyOf(volumes);
        }

        @Override
        public synchronized void removeWorkspace(String volume) {
            removed.add(volume);
            volumes.removeIf(v -> v.name().equals(volume));
        }
    }

    @BeforeEach
    void wire() {
        sweep.nodes = new BackendNodes() {
            @Override
            public String defaultNode() {
                return "local";
            }

            @Override
            public List<String> names() {
                return List.of("local");
            }

            @Override
            public RuntimeBackend on(String node) {
                return backend;
            }

            @Override
            public RuntimeImageBuilder images(String node) {
                throw new UnsupportedOperationException();
            }
        };
        sweep.records = new WorkspaceRecords() {
            @Override
            public Set<String> protectedNames() {
                return Set.copyOf(protectedNames);
            }

            @Override
            public List<Snapshot> snapshots(String userId) {
                return List.copyOf(recorded);
            }

            @Override
            public Optional<Snapshot> snapshot(String id) {
                return recordedSince.contains(id) ? Optional.of(new Snapshot(id, "alice", "s", "rt-1", "local", "img",
                        "vol", 1, 0, clock.instant())) : recorded.stream().filter(r -> r.id().equals(id)).findFirst();
            }
        };
        sweep.leases = new Leases(leaseStore, clock, me);
        sweep.journal = Journals.over(runtimes, clock, new RuntimeSecrets());
        sweep.config = config;
        sweep.clock = clock;
        sweep.health = Placements.health(sweep.nodes, clock);
    }

    private void volume(String name, String runtimeId, Duration age, boolean inUse) {
        backend.volumes.add(new WorkspaceVolume(name, runtimeId, clock.instant().minus(age), inUse));
    }

    @Test
    void shouldRemoveOnlyUnusedUnownedVolumesOlderThanTheGrace() {
        SandboxRuntime live = new SandboxRuntime("conv", "alice", "fake", "img", 1.0, 512, 60, clock.instant());
        runtimes.add(live, new StatusChange(live.id(), live.status(), "requested", clock.instant()));
        protectedNames.add("dockyard-kept-ws-1");
        protectedNames.add("rt-being-kept");
        volume("orphan", "rt-gone", Duration.ofMinutes(5), false);
        volume("mounted", "rt-pool-member", Duration.ofMinutes(5), true);
        volume("young", "rt-starting", Duration.ofSeconds(5), false);
        volume("dockyard-kept-ws-1", "rt-old", Duration.ofHours(5), false);
        volume("moving", "rt-being-kept", Duration.ofMinutes(5), false);
        volume("disconnected", live.id(), Duration.ofMinutes(5), false);

        assertEquals(1, sweep.sweep());
        assertEquals(List.of("orphan"), backend.removed);
    }

    private void captured(String snapshotId, String process, Duration age) {
        backend.captures.add(new CapturedSnapshot(snapshotId, process, clock.instant().minus(age)));
    }

    @Test
    void shouldRemoveTheSnapshotsOfCapturesWhoseProcessDiedBeforeRecordingThem() {
        Leases other = new Leases(leaseStore, clock, ControlPlaneInstance.of("cp2", Duration.ofSeconds(30)));
        other.heartbeat();
        recorded.add(new Snapshot("snap-recorded", "alice", "s", "rt-1", "local", "dockyard/snapshot:snap-recorded",
                "dockyard-snapshot-snap-recorded", 1, 0, clock.instant()));
        captured("snap-recorded", "cp0#dead", Duration.ofHours(1));
        captured("snap-young", "cp0#dead", Duration.ofSeconds(5));
        captured("snap-mine", me.process(), Duration.ofMinutes(5));
        captured("snap-other-live", other.me(), Duration.ofMinutes(5));
        captured("snap-unlabelled", null, Duration.ofMinutes(5));
        captured("snap-dead", "cp0#dead", Duration.ofMinutes(1));
        // this instance's earlier start, killed: its heartbeat may not have expired yet
        captured("snap-earlier-self", "cp1#0123", Duration.ofMinutes(1));
        // older than any capture takes: its live process's own cleanup failed (its engine stopped)
        captured("snap-long", other.me(), Duration.ofMinutes(20));
        // made before processes were named: once older than any capture takes
        captured("snap-unnamed-old", null, Duration.ofMinutes(20));
        // its process died just after it recorded it, while the pass ran
        captured("snap-late", "cp0#dead", Duration.ofMinutes(1));
        recordedSince.add("snap-late");

        sweep.sweep();

        assertEquals(List.of("snap-dead", "snap-earlier-self", "snap-long", "snap-unnamed-old"), backend.removed);
        assertEquals(List.of(config.instance() + "'s helpers before " + clock.instant().minus(config.reconcilerGrace()),
                "captures"), backend.sweptInOrder, "a killed process's copier still mounts the volumes: it goes first");
    }

    @Test
    void shouldDoNothingWhenTheVolumesCannotBeListed() {
        volume("orphan", "rt-gone", Duration.ofMinutes(5), false);
        backend.unlistable = true;
        assertEquals(0, sweep.sweep());
        assertEquals(List.of(), backend.removed);
    }

    @Test
    void shouldDoNothingWhenTheDatabaseCannotBeRead() {
        volume("orphan", "rt-gone", Duration.ofMinutes(5), false);
        sweep.records = new WorkspaceRecords() {
            @Override
            public Set<String> protectedNames() {
                throw new IllegalStateException("database down");
            }
        };
        assertEquals(0, sweep.sweep());
        assertEquals(List.of(), backend.removed);
        assertEquals(List.of(), backend.sweptInOrder);
    }
}
