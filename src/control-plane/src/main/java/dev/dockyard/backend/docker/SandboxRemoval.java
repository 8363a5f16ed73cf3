package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxWorkspace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * How a sandbox goes, with everything made for it: its container, its own workspace and home
 * volumes (named volumes outlive their container) and its network; or all of it but the
 * workspace, which is kept under another name for a later sandbox to mount. The quiet removals
 * are also what a failed creation or snapshot undoes with: what they cannot remove is labelled,
 * and the reconciler's sweeps remove it later.
 */
final class SandboxRemoval {

    private static final Logger LOG = Logger.getLogger(SandboxRemoval.class.getName());

    /**
     * How long a removal waits, after the engine's kill gave up, for the container's last process
     * to end: a delete answered late beats one refused with its sandbox left running.
     */
    static final Duration EXIT_WAIT = Duration.ofSeconds(30);

    private final DockerClient docker;
    private final WorkspaceVolumes workspaces;
    private final HomeVolumes homes;
    private final SandboxNetworks networks;
    private final ContainerViews views;
    private final Duration exitWait;

    SandboxRemoval(DockerClient docker, WorkspaceVolumes workspaces, HomeVolumes homes, SandboxNetworks networks,
                   ContainerViews views) {
        this(docker, workspaces, homes, networks, views, EXIT_WAIT);
    }

    SandboxRemoval(DockerClient docker, WorkspaceVolumes workspaces, HomeVolumes homes, SandboxNetworks networks,
                   ContainerViews views, Duration exitWait) {
        this.exitWait = exitWait;
        this.docker = docker;
        this.workspaces = workspaces;
        this.homes = homes;
        this.networks = networks;
        this.views = views;
    }

    void remove(String sandboxName) {
        removeContainer(sandboxName);
        // named volumes outlive their container: its own ones go explicitly (a mounted kept one stays)
        removeWorkspaceQuietly(SandboxWorkspace.ownVolume(sandboxName));
        removeHomeQuietly(sandboxName);
        networks.remove(sandboxName);
        ContainerReplacement.removeKeptLayer(docker, sandboxName);
    }

    /**
     * Removes the sandbox but keeps its workspace as {@code keptVolume} (labelled {@code labels});
     * returns the kept volume, or null when the sandbox had none left.
     */
    String keepWorkspace(String sandboxName, String keptVolume, Map<String, String> labels) {
        String volume = views.workspaceVolume(sandboxName);
        String image = null;
        try {
            image = docker.inspectContainerCmd(sandboxName).exec().getImageId();
        } catch (NotFoundException e) {
            // gone already: its own volume may still be there
            volume = SandboxWorkspace.ownVolume(sandboxName);
        }
        removeContainer(sandboxName);
        networks.remove(sandboxName);
        // the home goes with the sandbox, as a writable root's layer does: only the workspace is kept
        removeHomeQuietly(sandboxName);
        try {
            if (volume == null || volume.equals(keptVolume)) {
                return volume;
            }
            try {
                docker.inspectVolumeCmd(volume).exec();
            } catch (NotFoundException e) {
                return null;
            }
            Map<String, String> all = new HashMap<>(labels);
            // the move's copier runs the sandbox's image: a replaced layer goes only after it
            workspaces.move(volume, keptVolume, image == null ? "dockyard/sandbox:latest" : image, all);
            return keptVolume;
        } finally {
            ContainerReplacement.removeKeptLayer(docker, sandboxName);
        }
    }

    /** Removes the container and its anonymous volumes; one already gone (or going) is fine. */
    void removeContainer(String sandboxName) {
        try {
            forceRemove(sandboxName);
        } catch (DockerException e) {
            // a process stuck writing to a frozen disk outlives every kill ("did not receive an exit
            // event"): thawed, it dies, and the removal goes through. One in the kernel for another
            // reason (a loop disk's I/O on a machine under load) dies once that I/O ends, later than
            // the engine's 12 s of waiting for it
            if (!thawDisks(sandboxName) && !(killedLate(e) && exited(sandboxName, exitWait))) {
                throw removalFailed(sandboxName, e);
            }
            try {
                forceRemove(sandboxName);
            } catch (DockerException again) {
                throw removalFailed(sandboxName, again);
            }
        }
    }

    /** Whether the engine killed the container but gave up waiting for its processes to end. */
    private static boolean killedLate(DockerException e) {
        return DockerErrors.describe(e).contains("did not receive an exit event");
    }

    /**
     * Whether the container stopped running (or went) within {@code wait}, looked at every half
     * second: the engine's kill was sent, and its exit is recorded once the last process ends.
     */
    private boolean exited(String sandboxName, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                if (!Boolean.TRUE.equals(docker.inspectContainerCmd(sandboxName).exec().getState().getRunning())) {
                    return true;
                }
            } catch (NotFoundException e) {
                return true;
            } catch (RuntimeException e) {
                // the engine's failure to say: the removal's first failure is the one reported
                return false;
            }
            if (System.nanoTime() >= deadline) {
                LOG.warning("Container " + sandboxName + " still runs " + wait.toSeconds()
                        + " s after the engine's kill gave up on it");
                return false;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static BackendException removalFailed(String sandboxName, DockerException e) {
        return new BackendException("Docker could not remove container '" + sandboxName + "': "
                + DockerErrors.describe(e), e);
    }

    private void forceRemove(String sandboxName) {
        try {
            docker.removeContainerCmd(sandboxName).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException | NotModifiedException e) {
            // already gone
        } catch (ConflictException e) {
            // removal already in progress: Docker finishes it
        }
    }

    /** Thaws the disks the container mounts where any is frozen; whether one was. */
    private boolean thawDisks(String sandboxName) {
        LoopDisks disks = workspaces.disks();
        if (disks == null) {
            return false;
        }
        boolean thawed = false;
        try {
            List<InspectContainerResponse.Mount> mounts = docker.inspectContainerCmd(sandboxName).exec().getMounts();
            for (InspectContainerResponse.Mount mount : mounts == null ? List.<InspectContainerResponse.Mount>of() : mounts) {
                if (mount.getName() != null) {
                    thawed |= disks.thaw(mount.getName());
                }
            }
        } catch (RuntimeException e) {
            // the engine's failure to say (a DockerException, or its transport's own): the removal's
            // first failure is the one reported
            return false;
        }
        return thawed;
    }

    void removeWorkspaceQuietly(String volume) {
        if (volume == null) {
            return;
        }
        try {
            workspaces.remove(volume);
        } catch (RuntimeException e) {
            // the reconciler's sweep removes an unused labelled volume later
            LOG.warning("Could not remove workspace volume " + volume + ": " + e.getMessage());
        }
    }

    /** Removes the sandbox's home volume (a read-only root's, see {@link SandboxConfinement}), if it has one. */
    void removeHomeQuietly(String sandboxName) {
        try {
            homes.remove(sandboxName);
        } catch (NotFoundException e) {
            // none: a writable root, or gone already
        } catch (DockerException e) {
            // still in use (a removal in progress) or the engine failing: the volume is named after the sandbox
            LOG.warning("Could not remove home volume of " + sandboxName + ": " + DockerErrors.describe(e));
        }
    }

    void removeNetworkQuietly(String network, String sandboxName) {
        if (network == null) {
            return;
        }
        try {
            networks.remove(sandboxName);
        } catch (RuntimeException e) {
            // the reconciler's sweep removes an unused sandbox network later
            LOG.warning("Could not remove network " + network + ": " + e.getMessage());
        }
    }
}
