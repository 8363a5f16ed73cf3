package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectVolumeResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.WorkspaceVolume;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The workspace volumes of one engine: labelled Docker volumes, each the {@code /workspace} of one
 * sandbox at a time. With {@link LoopDisks} (bounded) each volume is an ext4 disk of its own size;
 * without (the engine is elsewhere, or this process is not root) they are the local driver's
 * plain directories, sharing the engine's disk, and a copy is made by a short-lived container.
 */
final class WorkspaceVolumes {

    private static final Logger LOG = Logger.getLogger(WorkspaceVolumes.class.getName());
    /** Label holding a volume's creation time (epoch ms): Docker's volume inspection has none. */
    static final String CREATED_AT = "dev.dockyard.created-at";
    static final String MOUNTED_AT = "/workspace";
    /** On a workspace's copier: the control plane that runs it (it carries no {@link Labels#CONTROL_PLANE}). */
    static final String COPIER_OF = "dev.dockyard.copier-of";
    /** How long a copier may take before its runner gives up on it (and removes it). */
    static final Duration COPY_LIMIT = Duration.ofMinutes(10);

    private final DockerClient docker;
    private final LoopDisks disks;
    private final int defaultDiskMb;
    private final Clock clock;

    /** @param disks null: unbounded plain volumes */
    WorkspaceVolumes(DockerClient docker, LoopDisks disks, int defaultDiskMb, Clock clock) {
        this.docker = docker;
        this.disks = disks;
        this.defaultDiskMb = defaultDiskMb;
        this.clock = clock;
    }

    boolean bounded() {
        return disks != null;
    }

    /** The node's bounded disks, or null when its volumes are plain (home volumes follow the same choice). */
    LoopDisks disks() {
        return disks;
    }

    /** The size a new volume gets for a request of {@code diskMb} (0: the default); 0 when unbounded. */
    int sizeFor(int diskMb) {
        return disks == null ? 0 : diskMb > 0 ? diskMb : defaultDiskMb;
    }

    /** A new empty volume; its root owned by {@code owner} (uid[:gid]) until Docker seeds it from the image. */
    void create(String volume, int diskMb, String owner, Map<String, String> labels) {
        if (disks != null) {
            disks.create(volume, sizeFor(diskMb), owner);
        }
        register(volume, labels);
    }

    /**
     * A copy of {@code source} as {@code target}. The source's writers must be frozen (a paused
     * sandbox, or none): a bounded disk is also flushed and frozen while it is copied; a plain one
     * is copied by a container of {@code image} (owners, modes and links kept).
     */
    void copy(String source, String target, String image, Map<String, String> labels, boolean inUse) {
        if (disks != null) {
            disks.copy(source, target, mountpoint(source), inUse);
            register(target, labels);
            return;
        }
        register(target, labels);
        try {
            copyInContainer(source, target, image, labels);
        } catch (RuntimeException e) {
            remove(target);
            throw e;
        }
    }

    private void register(String volume, Map<String, String> labels) {
        Map<String, String> all = new HashMap<>(labels);
        all.put(Labels.WORKSPACE, "true");
        all.put(CREATED_AT, String.valueOf(clock.millis()));
        Map<String, String> options = disks == null ? Map.of() : disks.volumeOptions(volume);
        try {
            docker.createVolumeCmd().withName(volume).withDriver("local").withDriverOpts(options).withLabels(all).exec();
        } catch (DockerException e) {
            if (disks != null) {
                disks.delete(volume);
            }
            throw new BackendException("Docker could not create workspace volume " + volume + ": " + e.getMessage(), e);
        }
    }

    private String mountpoint(String volume) {
        try {
            return docker.inspectVolumeCmd(volume).exec().getMountpoint();
        } catch (NotFoundException e) {
            throw new BackendException("workspace volume " + volume + " is gone", e);
        }
    }

    /**
     * Dockyard's labels, but no control plane's: the reconciler lists sandboxes by that label and
     * must not take the copier for the runtime's sandbox.
     */
    private static Map<String, String> copierLabels(Map<String, String> labels) {
        Map<String, String> copier = new HashMap<>(labels);
        // its own label for its control plane: the sweep of copiers left behind takes only its own
        String controlPlane = copier.remove(Labels.CONTROL_PLANE);
        copier.put(COPIER_OF, controlPlane == null ? "" : controlPlane);
        copier.put(Labels.WORKSPACE, "copy");
        return copier;
    }

    private void copyInContainer(String source, String target, String image, Map<String, String> labels) {
        String id = docker.createContainerCmd(image)
                .withUser("0")
                .withEntrypoint("cp")
                .withCmd("-a", "/from/.", "/to/")
                .withLabels(copierLabels(labels))
                .withNetworkDisabled(true)
                .withHostConfig(HostConfig.newHostConfig().withBinds(
                        new Bind(source, new Volume("/from"), AccessMode.ro), new Bind(target, new Volume("/to"))))
                .exec().getId();
        try {
            docker.startContainerCmd(id).exec();
            int code = docker.waitContainerCmd(id).start().awaitStatusCode(COPY_LIMIT.toMinutes(), TimeUnit.MINUTES);
            if (code != 0) {
                throw new BackendException("copying workspace " + source + " failed (exit " + code + ")");
            }
        } finally {
            try {
                docker.removeContainerCmd(id).withForce(true).exec();
            } catch (DockerException e) {
                LOG.warning("Could not remove the copying container " + id + ": " + e.getMessage());
            }
        }
    }

    /**
     * Removes the copiers {@code controlPlane} left behind (a process killed while one ran): each
     * keeps its two volumes in use, so neither the runtime's removal nor the orphan sweep could
     * take them. A copier is nobody's once it has ended before {@code cutoff} (its runner removes
     * it as soon as it ends), or is older than {@link #COPY_LIMIT} (its runner gave up on it).
     */
    int sweepCopiers(String controlPlane, Instant cutoff) {
        int removed = 0;
        for (Container copier : docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(Labels.WORKSPACE, "copy", COPIER_OF, controlPlane)).exec()) {
            Instant created = Instant.ofEpochSecond(copier.getCreated() == null ? 0 : copier.getCreated());
            if (created.isAfter(cutoff)) {
                continue;
            }
            // running, or about to (created, not started yet): its runner waits for it that long
            if (created.isAfter(cutoff.minus(COPY_LIMIT)) && !"exited".equals(copier.getState())
                    && !"dead".equals(copier.getState())) {
                continue;
            }
            if ("exited".equals(copier.getState()) && !endedBefore(copier.getId(), cutoff)) {
                continue;
            }
            try {
                docker.removeContainerCmd(copier.getId()).withForce(true).exec();
                removed++;
                LOG.info("Removed the workspace copier " + copier.getId() + " a control plane left behind");
            } catch (NotFoundException e) {
                // its runner removed it meanwhile
            } catch (DockerException e) {
                LOG.fine("copier " + copier.getId() + " left for now: " + e.getMessage());
            }
        }
        return removed;
    }

    private boolean endedBefore(String container, Instant cutoff) {
        try {
            String finished = docker.inspectContainerCmd(container).exec().getState().getFinishedAt();
            return finished != null && Instant.parse(finished).isBefore(cutoff);
        } catch (NotFoundException e) {
            return false;
        } catch (DateTimeParseException e) {
            return true;
        }
    }

    /**
     * Moves an unused volume to another name (a kept workspace's): a bounded disk is renamed, a
     * plain volume copied by a container of {@code image}; the old volume goes.
     */
    void move(String source, String target, String image, Map<String, String> labels) {
        if (disks == null) {
            copy(source, target, image, labels, false);
            remove(source);
            return;
        }
        disks.rename(source, target);
        try {
            register(target, labels);
        } catch (RuntimeException e) {
            disks.rename(target, source);
            throw e;
        }
        try {
            docker.removeVolumeCmd(source).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (DockerException e) {
            // its disk has moved: the volume is an empty name the reconciler's sweep removes
            LOG.warning("Could not remove workspace volume " + source + " after moving it: " + e.getMessage());
        }
    }

    /** Before a sandbox starts on it: its disk attached (after a host reboot it is not). */
    void ensureAttached(String volume) {
        if (disks != null && volume != null) {
            disks.attach(volume);
        }
    }

    /** Removes the volume and its disk; already gone is success, in use is a BackendException. */
    void remove(String volume) {
        try {
            docker.removeVolumeCmd(volume).exec();
        } catch (NotFoundException e) {
            // already gone: its disk may still be there
        } catch (ConflictException e) {
            throw new BackendException("workspace volume " + volume + " is still in use", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not remove workspace volume " + volume + ": " + e.getMessage(), e);
        }
        if (disks != null) {
            disks.delete(volume);
        }
    }

    /** The volume's size limit in bytes, or 0 when it has none. */
    long capacityBytes(String volume) {
        return disks == null ? 0 : disks.capacityBytes(volume);
    }

    long bytes(String volume) {
        return disks == null ? -1 : disks.allocatedBytes(volume);
    }

    List<WorkspaceVolume> list(String controlPlane) {
        List<InspectVolumeResponse> volumes;
        Set<String> dangling = new HashSet<>();
        try {
            List<String> filter = List.of(Labels.MANAGED + "=true", Labels.CONTROL_PLANE + "=" + controlPlane,
                    Labels.WORKSPACE + "=true");
            volumes = docker.listVolumesCmd().withFilter("label", filter).exec().getVolumes();
            List<InspectVolumeResponse> unused = docker.listVolumesCmd().withFilter("label", filter)
                    .withDanglingFilter(true).exec().getVolumes();
            if (unused != null) {
                unused.forEach(v -> dangling.add(v.getName()));
            }
        } catch (RuntimeException e) {
            throw new BackendException("Docker could not list the workspace volumes: " + e.getMessage(), e);
        }
        if (volumes == null) {
            return List.of();
        }
        return volumes.stream().map(v -> {
            Map<String, String> labels = v.getLabels() == null ? Map.of() : v.getLabels();
            Instant created;
            try {
                created = Instant.ofEpochMilli(Long.parseLong(labels.getOrDefault(CREATED_AT, "0")));
            } catch (NumberFormatException e) {
                created = Instant.EPOCH;
            }
            return new WorkspaceVolume(v.getName(), labels.get(Labels.RUNTIME_ID), created,
                    !dangling.contains(v.getName()), labels.get(Labels.SNAPSHOT_ID), labels.get(Labels.CAPTURED_BY));
        }).toList();
    }
}
