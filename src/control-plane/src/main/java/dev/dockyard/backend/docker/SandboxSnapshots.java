package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Image;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.CapturedSnapshot;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SnapshotCapture;
import dev.dockyard.backend.WorkspaceVolume;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Snapshots of frozen sandboxes: the container committed to the image
 * {@code dockyard/snapshot:<id>} and its workspace copied to the volume
 * {@code dockyard-snapshot-<id>}, which a later sandbox starts from (its workspace a copy of that
 * volume). A read-only root's home volume, which no commit carries, is written into the image. A
 * capture that fails leaves neither half behind.
 */
final class SandboxSnapshots {

    private static final Logger LOG = Logger.getLogger(SandboxSnapshots.class.getName());

    /** Where snapshot images are tagged. */
    static final String SNAPSHOT_REPOSITORY = "dockyard/snapshot";
    /** The workspace copy's name, before the snapshot's id. */
    static final String VOLUME_PREFIX = "dockyard-snapshot-";

    private final DockerClient docker;
    private final WorkspaceVolumes workspaces;
    private final ContainerViews views;
    private final SandboxRemoval removal;

    SandboxSnapshots(DockerClient docker, WorkspaceVolumes workspaces, ContainerViews views, SandboxRemoval removal) {
        this.docker = docker;
        this.workspaces = workspaces;
        this.views = views;
        this.removal = removal;
    }

    /**
     * Commits the (frozen) container to {@code dockyard/snapshot:<id>} and copies its workspace to
     * the volume {@code dockyard-snapshot-<id>}; the volume is copied first, as the commit of a
     * large layer takes longest and the copy must see the same moment. A read-only root's home
     * volume, which no commit carries, is then written into the image ({@link #bakeHome}).
     */
    SnapshotCapture capture(String sandboxName, String snapshotId, Map<String, String> labels) {
        String source = views.workspaceVolume(sandboxName);
        if (source == null) {
            throw new BackendException("sandbox '" + sandboxName + "' has no workspace volume to snapshot");
        }
        String image = SNAPSHOT_REPOSITORY + ":" + snapshotId;
        String volume = VOLUME_PREFIX + snapshotId;
        String containerImage;
        try {
            containerImage = docker.inspectContainerCmd(sandboxName).exec().getImageId();
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        }
        workspaces.copy(source, volume, containerImage, labels, true);
        try {
            docker.commitCmd(sandboxName).withRepository(SNAPSHOT_REPOSITORY).withTag(snapshotId)
                    .withLabels(labels).withPause(false).exec();
            if (views.homeVolume(sandboxName) != null) {
                bakeHome(sandboxName, snapshotId, labels);
            }
            long layer = layerBytes(image, containerImage);
            long disk = Math.max(0, workspaces.bytes(volume));
            return new SnapshotCapture(image, volume, layer + disk, workspaces.sizeFor(diskMbOf(volume)));
        } catch (RuntimeException e) {
            removal.removeWorkspaceQuietly(volume);
            removeImageQuietly(image);
            throw e instanceof BackendException b ? b
                    : new BackendException("Docker could not commit '" + sandboxName + "': "
                    + DockerErrors.describe(e), e);
        }
    }

    /**
     * Writes the frozen sandbox's home volume into the snapshot's image, at the place the volume is
     * mounted: a scratch container of the committed image (never started) receives the home's
     * contents and is committed under the same tag. A sandbox started from the snapshot gets a
     * fresh home volume there, which the engine fills from the image: the home carried over.
     */
    private void bakeHome(String sandboxName, String snapshotId, Map<String, String> labels) {
        String image = SNAPSHOT_REPOSITORY + ":" + snapshotId;
        String scratch = docker.createContainerCmd(image).exec().getId();
        try (InputStream home = docker.copyArchiveFromContainerCmd(sandboxName, SandboxConfinement.HOME_DIR + "/.")
                .exec()) {
            docker.copyArchiveToContainerCmd(scratch).withTarInputStream(home)
                    .withRemotePath(SandboxConfinement.HOME_DIR).exec();
            docker.commitCmd(scratch).withRepository(SNAPSHOT_REPOSITORY).withTag(snapshotId).withLabels(labels)
                    .withPause(false).exec();
        } catch (IOException e) {
            throw new BackendException("the home archive of '" + sandboxName + "' broke off: " + e.getMessage(), e);
        } finally {
            removal.removeContainer(scratch);
        }
    }

    /** Removes a half-made snapshot's image: the commit went through, writing the home in did not. */
    private void removeImageQuietly(String image) {
        try {
            docker.removeImageCmd(image).withForce(false).exec();
        } catch (NotFoundException e) {
            // never committed
        } catch (DockerException e) {
            LOG.warning("Could not remove the image " + image + " of a failed snapshot: " + DockerErrors.describe(e));
        }
    }

    /** The committed layers alone: the snapshot's image less the image its sandbox ran. */
    private long layerBytes(String image, String base) {
        InspectImageResponse inspect = docker.inspectImageCmd(image).exec();
        long size = inspect.getSize() == null ? 0 : inspect.getSize();
        try {
            Long baseSize = docker.inspectImageCmd(base).exec().getSize();
            return Math.max(0, size - (baseSize == null ? 0 : baseSize));
        } catch (NotFoundException e) {
            return size;
        }
    }

    private int diskMbOf(String volume) {
        return (int) (workspaces.capacityBytes(volume) / (1024 * 1024));
    }

    /**
     * Removes the snapshots of {@code controlPlane} that {@code abandoned} names: their image, when
     * no container uses it, and their workspace copy, when no container mounts it. A snapshot is
     * known here by the tag {@code dockyard/snapshot:<id>} or the volume {@code dockyard-snapshot-<id>}
     * carrying its labels; images built from a snapshot's image inherit its labels, not its tag.
     */
    int sweep(String controlPlane, Predicate<CapturedSnapshot> abandoned) {
        Map<String, CapturedSnapshot> found = new HashMap<>();
        List<Image> images = docker.listImagesCmd().withFilter("label",
                List.of(Labels.CONTROL_PLANE + "=" + controlPlane, Labels.SNAPSHOT_ID)).exec();
        for (Image image : images == null ? List.<Image>of() : images) {
            Map<String, String> labels = image.getLabels() == null ? Map.of() : image.getLabels();
            String id = labels.get(Labels.SNAPSHOT_ID);
            if (id != null && image.getRepoTags() != null
                    && Arrays.asList(image.getRepoTags()).contains(SNAPSHOT_REPOSITORY + ":" + id)) {
                Instant created = Instant.ofEpochSecond(image.getCreated() == null ? 0 : image.getCreated());
                found.merge(id, new CapturedSnapshot(id, labels.get(Labels.CAPTURED_BY), created),
                        SandboxSnapshots::both);
            }
        }
        for (WorkspaceVolume volume : workspaces.list(controlPlane)) {
            String id = volume.snapshotId();
            if (id != null && volume.name().equals(VOLUME_PREFIX + id)) {
                found.merge(id, new CapturedSnapshot(id, volume.capturedBy(), volume.createdAt()),
                        SandboxSnapshots::both);
            }
        }
        int removed = 0;
        for (CapturedSnapshot snapshot : found.values()) {
            if (!abandoned.test(snapshot)) {
                continue;
            }
            try {
                remove(SNAPSHOT_REPOSITORY + ":" + snapshot.snapshotId(), VOLUME_PREFIX + snapshot.snapshotId());
                removed++;
                LOG.info("Removed snapshot " + snapshot.snapshotId() + ", whose capture by " + snapshot.process()
                        + " was never recorded");
            } catch (BackendException e) {
                // a sandbox still runs its image or mounts its copy: next pass
                LOG.fine("Unrecorded snapshot " + snapshot.snapshotId() + " left for now: " + e.getMessage());
            }
        }
        return removed;
    }

    /** One snapshot's image and copy as one: made when the first of them was, by whichever names its process. */
    private static CapturedSnapshot both(CapturedSnapshot image, CapturedSnapshot copy) {
        return new CapturedSnapshot(image.snapshotId(), image.process() != null ? image.process() : copy.process(),
                image.createdAt().isBefore(copy.createdAt()) ? image.createdAt() : copy.createdAt());
    }

    /** Removes the snapshot's image (refused while a sandbox still runs it) and then its volume. */
    void remove(String image, String volume) {
        try {
            docker.removeImageCmd(image).withForce(false).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (ConflictException e) {
            throw new BackendException("the snapshot's image " + image + " is still used by a sandbox", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not remove image " + image + ": " + DockerErrors.describe(e), e);
        }
        workspaces.remove(volume);
    }
}
