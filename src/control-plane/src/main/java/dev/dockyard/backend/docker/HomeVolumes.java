package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectVolumeResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxSpec;
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
 */
final class HomeVolumes {

    private static final Logger LOG = Logger.getLogger(HomeVolumes.class.getName());

    private final DockerClient docker;
    private final Clock clock;

    HomeVolumes(DockerClient docker, Clock clock) {
        this.docker = docker;
        this.clock = clock;
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
        try {
            docker.createVolumeCmd().withName(SandboxConfinement.homeVolume(spec.name())).withDriver("local")
                    .withLabels(labels).exec();
        } catch (DockerException e) {
            throw new BackendException("Docker could not create the home volume of " + spec.name() + ": "
                    + e.getMessage(), e);
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
                removed++;
                LOG.info("Removed orphan home volume " + volume.getName());
            } catch (NotFoundException | ConflictException e) {
                // gone already, or a container mounts it after all
            }
        }
        return removed;
    }
}
