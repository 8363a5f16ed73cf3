package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ContainerConfig;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * A stopped container its engine can no longer start, replaced by a copy that it can: the same
 * name, configuration, labels, volumes and networks, under a new id.
 *
 * <p>The engine's containerd keeps a task's state directory by container id. When containerd goes
 * away while a start is being carried out (the engine restarted, or its supervisor restarting a
 * containerd that stopped answering under load), that directory can be left behind, and every
 * later start of the container is refused, "task &lt;id&gt;: already exists" or "failed to start
 * shim: mkdir …: file exists", until the host's runtime directory is cleared. Docker's API has no
 * call that removes it (measured on Debian's docker.io 20.10 with its own containerd, and in the
 * soak of 2026-12-01 02:45: a runtime disconnected for five minutes, its start refused every 10 s).
 * A new container gets a new id, so a new directory.
 *
 * <p>Nothing the sandbox kept is lost: named volumes (the workspace, the home) are mounted again by
 * name; anonymous ones (the executor's key directory, an image's declared volumes) are copied over;
 * a writable root's layer is committed to an image ({@link #IMAGE_REPOSITORY}, tagged with the
 * sandbox's name) that the new container runs and that goes when the sandbox is removed
 * ({@link SandboxRemoval}). A read-only root (the default) has no layer worth keeping.
 */
final class ContainerReplacement {

    private static final Logger LOG = Logger.getLogger(ContainerReplacement.class.getName());

    /** Where a replaced writable root's layer is kept, tagged with its sandbox's name. */
    static final String IMAGE_REPOSITORY = "dockyard/replaced";

    private static final Pattern STALE_TASK = Pattern.compile(
            "task [0-9a-f]{64}: already exists|failed to start shim: mkdir \\S+: file exists");

    private final DockerClient docker;

    ContainerReplacement(DockerClient docker) {
        this.docker = docker;
    }

    /** Whether a start's refusal says the engine keeps a task left over by an earlier, cut-off start. */
    static boolean staleTask(String dockerSaid) {
        return STALE_TASK.matcher(dockerSaid).find();
    }

    /** The image a replaced writable root's layer is kept in. */
    static String imageOf(String sandboxName) {
        return IMAGE_REPOSITORY + ":" + sandboxName;
    }

    /**
     * Removes the image a replaced container's writable root was kept in, if the sandbox had one:
     * called once its container is gone, it goes with its sandbox, as the layer would have.
     */
    static void removeKeptLayer(DockerClient docker, String sandboxName) {
        try {
            docker.removeImageCmd(imageOf(sandboxName)).withForce(false).exec();
        } catch (NotFoundException e) {
            // never replaced, or a read-only root: the common case
        } catch (DockerException e) {
            LOG.warning("Could not remove the image " + imageOf(sandboxName) + " of a replaced container: "
                    + DockerErrors.describe(e));
        }
    }

    /**
     * Replaces the stopped container {@code sandboxName} by a copy under the same name, not started.
     * When the copy cannot be made, the old container keeps its name and the failure is thrown.
     */
    void replace(String sandboxName) {
        InspectContainerResponse old = docker.inspectContainerCmd(sandboxName).exec();
        ContainerConfig config = old.getConfig();
        HostConfig host = old.getHostConfig();
        String image = Boolean.TRUE.equals(host.getReadonlyRootfs()) ? old.getImageId()
                : docker.commitCmd(old.getId()).withRepository(IMAGE_REPOSITORY).withTag(sandboxName)
                        .withPause(false).exec();
        // the name is the sandbox's address for everyone: the old container gives it up only for the copy
        String parked = sandboxName + "-replaced-" + old.getId().substring(0, 12);
        docker.renameContainerCmd(old.getId()).withName(parked).exec();
        String id;
        try {
            id = create(sandboxName, image, config, host);
        } catch (RuntimeException e) {
            docker.renameContainerCmd(old.getId()).withName(sandboxName).exec();
            throw new BackendException("Docker could not replace the container '" + sandboxName
                    + "' it cannot start again: " + describe(e), e);
        }
        try {
            attachOtherNetworks(id, old, host.getNetworkMode());
            copyAnonymousVolumes(old, id);
        } catch (RuntimeException e) {
            // the copy is incomplete: the old container takes its name back, and the copy goes
            docker.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
            docker.renameContainerCmd(old.getId()).withName(sandboxName).exec();
            throw new BackendException("Docker could not replace the container '" + sandboxName
                    + "' it cannot start again: " + describe(e), e);
        }
        try {
            docker.removeContainerCmd(old.getId()).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (DockerException e) {
            // its labels are the sandbox's: the reconciler's sweep of unrecorded sandboxes takes it
            LOG.warning("Could not remove the replaced container " + parked + ": " + DockerErrors.describe(e));
        }
        LOG.info("Replaced the container of " + sandboxName + " (" + old.getId().substring(0, 12) + " → "
                + id.substring(0, 12) + "): its engine kept a task of an earlier start and refused to start it");
    }

    private String create(String sandboxName, String image, ContainerConfig config, HostConfig host) {
        // docker-java takes no null for an array: what the old container did not set stays unset
        CreateContainerCmd create = docker.createContainerCmd(image).withName(sandboxName)
                .withHostConfig(host)
                .withLabels(config.getLabels())
                .withUser(config.getUser())
                .withWorkingDir(config.getWorkingDir())
                .withHostName(config.getHostName())
                .withDomainName(config.getDomainName())
                .withTty(config.getTty())
                .withStdinOpen(config.getStdinOpen())
                .withHealthcheck(config.getHealthcheck());
        if (config.getEnv() != null) {
            create.withEnv(config.getEnv());
        }
        if (config.getEntrypoint() != null) {
            create.withEntrypoint(config.getEntrypoint());
        }
        if (config.getCmd() != null) {
            create.withCmd(config.getCmd());
        }
        if (config.getExposedPorts() != null) {
            create.withExposedPorts(config.getExposedPorts());
        }
        if (config.getVolumes() != null) {
            create.withVolumes(config.getVolumes().keySet().stream().map(Volume::new).toList());
        }
        return create.exec().getId();
    }

    /** Attaches the copy to the networks the old container had besides the one it was created on. */
    private void attachOtherNetworks(String id, InspectContainerResponse old, String created) {
        Map<String, ContainerNetwork> networks = old.getNetworkSettings() == null ? null
                : old.getNetworkSettings().getNetworks();
        if (networks == null) {
            return;
        }
        networks.forEach((network, endpoint) -> {
            if (!network.equals(created)) {
                docker.connectToNetworkCmd().withContainerId(id).withNetworkId(network)
                        .withContainerNetwork(new ContainerNetwork().withAliases(aliases(endpoint))).exec();
            }
        });
    }

    private static List<String> aliases(ContainerNetwork endpoint) {
        return endpoint.getAliases() == null ? List.of() : new ArrayList<>(endpoint.getAliases());
    }

    /**
     * Copies what the old container's anonymous volumes hold into the copy's new ones at the same
     * places: the executor's key directory (a revive hands the key to the stopped container before it
     * starts), an image's declared volumes.
     */
    private void copyAnonymousVolumes(InspectContainerResponse old, String id) {
        List<String> named = old.getHostConfig().getBinds() == null ? List.of()
                : Arrays.stream(old.getHostConfig().getBinds()).map(b -> b.getVolume().getPath()).toList();
        for (InspectContainerResponse.Mount mount : old.getMounts() == null
                ? List.<InspectContainerResponse.Mount>of() : old.getMounts()) {
            String path = mount.getDestination() == null ? null : mount.getDestination().getPath();
            if (path == null || mount.getName() == null || named.contains(path)) {
                continue;
            }
            // the directory's contents, unpacked into the same directory of the copy
            try (InputStream tar = docker.copyArchiveFromContainerCmd(old.getId(), path + "/.").exec()) {
                docker.copyArchiveToContainerCmd(id).withTarInputStream(tar).withRemotePath(path).exec();
            } catch (IOException e) {
                throw new BackendException("the contents of " + path + " broke off: " + e.getMessage(), e);
            }
        }
    }

    private static String describe(RuntimeException e) {
        return e instanceof BackendException ? e.getMessage() : DockerErrors.describe(e);
    }
}
