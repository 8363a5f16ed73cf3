package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectVolumeResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxSpec;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The home volumes of read-only sandboxes ({@link SandboxConfinement#homeVolume}): created labelled
 * before their sandbox, like every resource Dockyard makes, so that one whose sandbox was lost (a
 * control plane killed between the two, a removal that failed) is found by its labels and swept.
 * The engine fills an empty volume from the image at its first mount, so a created volume still
 * starts with the image's home.
 *
 * <p>Where the node's workspaces are bounded disks ({@link LoopDisks}), a home is one too, of
 * {@code sizeMb}: as a plain volume it lay on the engine's own file system, and a sandbox with a
 * read-only root filled the host's disk through {@code $HOME} (issue 26). Where they are not, the
 * home is the engine's plain volume, as unbounded as the workspace.
 */
final class HomeVolumes {

    private static final Logger LOG = Logger.getLogger(HomeVolumes.class.getName());

    private final DockerClient docker;
    private final LoopDisks disks;
    private final int sizeMb;
    private final Clock clock;

    /** @param disks null: plain, unbounded volumes */
    HomeVolumes(DockerClient docker, LoopDisks disks, int sizeMb, Clock clock) {
        this.docker = docker;
        this.disks = disks;
        this.sizeMb = sizeMb;
        this.clock = clock;
    }

    /** Whether homes are disks of their own size here. */
    boolean bounded() {
        return disks != null;
    }

    /** Creates the sandbox's home volume with the sandbox's ownership labels. */
    void create(SandboxSpec spec) {
        Map<String, String> labels = new HashMap<>();
        for (String key : List.of(Labels.MANAGED, Labels.CONTROL_PLANE, Labels.RUNTIME_ID)) {
            String value = spec.labels().get(key);
            if (value != null) {
                labels.put(key, value);
            }
        }
        labels.put(Labels.HOME, "true");
        labels.put(WorkspaceVolumes.CREATED_AT, String.valueOf(clock.millis()));
        String volume = SandboxConfinement.homeVolume(spec.name());
        Map<String, String> options = Map.of();
        if (disks != null) {
            disks.create(volume, sizeMb, spec.user() == null ? "0" : spec.user());
            options = disks.volumeOptions(volume);
        }
        try {
            docker.createVolumeCmd().withName(volume).withDriver("local").withDriverOpts(options)
                    .withLabels(labels).exec();
        } catch (DockerException e) {
            if (disks != null) {
                disks.delete(volume);
            }
            throw new BackendException("Docker could not create the home volume of " + spec.name() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Before the sandbox starts again: its home disk attached (after a host reboot it is not). */
    void ensureAttached(String sandboxName) {
        String volume = SandboxConfinement.homeVolume(sandboxName);
        if (disks != null && Files.exists(disks.image(volume))) {
            disks.attach(volume);
        }
    }

    /**
     * Removes the sandbox's home volume and its disk; the engine's NotFoundException when it has
     * none, its ConflictException (disk kept) while a container still mounts it.
     */
    void remove(String sandboxName) {
        String volume = SandboxConfinement.homeVolume(sandboxName);
        try {
            docker.removeVolumeCmd(volume).exec();
        } catch (NotFoundException gone) {
            deleteDisk(volume);
            throw gone;
        }
        deleteDisk(volume);
    }

    private void deleteDisk(String volume) {
        if (disks != null) {
            disks.delete(volume);
        }
    }

    /**
     * Removes the home volumes of {@code controlPlane} created before {@code cutoff} that no
     * container uses (the engine refuses to remove a volume a container, running or not, mounts);
     * returns how many went.
     */
    int sweep(String controlPlane, Instant cutoff) {
        List<InspectVolumeResponse> volumes = docker.listVolumesCmd().withFilter("label", List.of(
                Labels.MANAGED + "=true", Labels.CONTROL_PLANE + "=" + controlPlane, Labels.HOME + "=true"))
                .withDanglingFilter(true).exec().getVolumes();
        int removed = 0;
        for (InspectVolumeResponse volume : volumes == null ? List.<InspectVolumeResponse>of() : volumes) {
            Map<String, String> labels = volume.getLabels() == null ? Map.of() : volume.getLabels();
            long created;
            try {
                created = Long.parseLong(labels.getOrDefault(WorkspaceVolumes.CREATED_AT, "0"));
            } catch (NumberFormatException e) {
                created = 0;
            }
            if (Instant.ofEpochMilli(created).isAfter(cutoff)) {
                continue;
            }
            try {
                docker.removeVolumeCmd(volume.getName()).exec();
                deleteDisk(volume.getName());
                removed++;
                LOG.info("Removed orphan home volume " + volume.getName());
            } catch (NotFoundException | ConflictException e) {
                // gone already, or a container mounts it after all
            }
        }
        return removed;
    }
}
