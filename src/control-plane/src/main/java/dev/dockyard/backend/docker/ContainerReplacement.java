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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

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
 * A new container gets a new id, so a new directory. Where the left task still ran a process, no
 * Docker call reaches it either: the engine's record says the container stopped.
 *
 * <p>Nothing the sandbox kept is lost: named volumes (the workspace, the home) are mounted again by
 * name; anonymous ones (a read-only root's key directory, an image's declared volumes) are copied
 * over; a writable root's layer is committed to an image ({@link #IMAGE_REPOSITORY}, tagged with the
 * sandbox's name) that the copy runs and that goes when the sandbox is removed ({@link
 * SandboxRemoval}). The files the control plane hands in (the session key, a program's environment)
 * are blanked in the old container before that commit and written into the copy, so no image holds
 * them. A read-only root (the default) has no layer worth keeping.
 *
 * <p>The copy is made complete under a name of its own, and only then do the two swap names, so the
 * sandbox's name always names one of them. Both names end in a marker ({@link #aside}) by which the
 * backend's list reports them as belonging to no runtime: one left by a failure is an orphan the
 * reconciler removes.
 */
final class ContainerReplacement {

    private static final Logger LOG = Logger.getLogger(ContainerReplacement.class.getName());

    /** Where a replaced writable root's layer is kept, tagged with its sandbox's name. */
    static final String IMAGE_REPOSITORY = "dockyard/replaced";

    /** The files the control plane hands into a sandbox, which no image may hold. */
    private static final List<String> HANDED_IN = List.of(ContainerFiles.KEY_DIR, "/" + ProcessLaunch.DIRECTORY);

    /** At most this much of them is kept in memory while the layer is committed. */
    private static final int MAX_HANDED_IN_BYTES = 1024 * 1024;

    private static final Pattern STALE_TASK = Pattern.compile(
            "task [0-9a-f]{64}: already exists|failed to start shim: mkdir \\S+: file exists");

    private static final Pattern ASIDE = Pattern.compile(".+-(replaced|replacing)-[0-9a-f]{12}");

    private final DockerClient docker;
    private final ContainerFiles files;
    private final Map<String, Object> replacing = new ConcurrentHashMap<>();

    ContainerReplacement(DockerClient docker) {
        this.docker = docker;
        this.files = new ContainerFiles(docker);
    }

    /** Whether a start's refusal says the engine keeps a task left over by an earlier, cut-off start. */
    static boolean staleTask(String dockerSaid) {
        return STALE_TASK.matcher(dockerSaid).find();
    }

    /** Whether {@code containerName} is an old container parked, or a copy being made, by a replacement. */
    static boolean aside(String containerName) {
        return ASIDE.matcher(containerName).matches();
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
        } catch (RuntimeException e) {
            LOG.warning("Could not remove the image " + imageOf(sandboxName) + " of a replaced container: "
                    + DockerErrors.describe(e));
        }
    }

    /**
     * Replaces the stopped container {@code sandboxName} by a copy under the same name, not started;
     * one replaced meanwhile by another caller is left as it is. When the copy cannot be made, the
     * old container keeps its name and its files, and the failure is thrown.
     */
    void replace(String sandboxName) {
        // one lock per name for good: removed, a third caller could take a new one while the second
        // waits on the first's (a name is replaced rarely, so they are few)
        synchronized (replacing.computeIfAbsent(sandboxName, n -> new Object())) {
            InspectContainerResponse old = docker.inspectContainerCmd(sandboxName).exec();
            String error = old.getState().getError();
            if (Boolean.TRUE.equals(old.getState().getRunning()) || error == null || error.isBlank()) {
                // started, or replaced (a copy never started has no error), by another caller since
                // this one was refused
                return;
            }
            replaceStopped(sandboxName, old);
        }
    }

    private void replaceStopped(String sandboxName, InspectContainerResponse old) {
        String oldId = old.getId();
        String shortId = oldId.substring(0, 12);
        boolean writable = !Boolean.TRUE.equals(old.getHostConfig().getReadonlyRootfs());
        Map<String, byte[]> handedIn = writable ? handedIn(oldId) : Map.of();
        // a layer kept by an earlier replacement, which the old container runs: its tag moves to the
        // new commit, whose parent it is (removed with it, untagged, when the sandbox goes)
        String previous = writable ? keptLayer(sandboxName) : null;
        String image = old.getImageId();
        String committed = null;
        String copy = null;
        try {
            if (writable) {
                blank(oldId, handedIn);
                committed = docker.commitCmd(oldId).withRepository(IMAGE_REPOSITORY).withTag(sandboxName)
                        .withPause(false).exec();
                image = committed;
            }
            copy = create(sandboxName + "-replacing-" + shortId, image, old.getConfig(), old.getHostConfig());
            attachOtherNetworks(copy, old, old.getHostConfig().getNetworkMode());
            copyAnonymousVolumes(old, copy);
            for (Map.Entry<String, byte[]> archive : handedIn.entrySet()) {
                put(copy, archive.getKey(), archive.getValue());
            }
            docker.renameContainerCmd(oldId).withName(sandboxName + "-replaced-" + shortId).exec();
            try {
                docker.renameContainerCmd(copy).withName(sandboxName).exec();
            } catch (RuntimeException e) {
                try {
                    docker.renameContainerCmd(oldId).withName(sandboxName).exec();
                } catch (RuntimeException back) {
                    // neither holds the name: both are kept, the copy whole, for whoever looks
                    e.addSuppressed(back);
                    LOG.severe("The container of " + sandboxName + " is left as " + sandboxName + "-replaced-"
                            + shortId + " and its copy as " + sandboxName + "-replacing-" + shortId
                            + ": neither could take the name back (" + DockerErrors.describe(e) + ")");
                    throw new NameLost("Docker could not give the sandbox '" + sandboxName
                            + "' its name back after a failed replacement: " + DockerErrors.describe(e), e);
                }
                throw e;
            }
        } catch (NameLost e) {
            throw e;
        } catch (BackendException e) {
            undo(sandboxName, oldId, copy, committed, previous, handedIn, e);
            throw new BackendException("Docker could not replace the container '" + sandboxName
                    + "' it cannot start again: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            undo(sandboxName, oldId, copy, committed, previous, handedIn, e);
            throw new BackendException("Docker could not replace the container '" + sandboxName
                    + "' it cannot start again: " + (e instanceof BackendException ? e.getMessage()
                    : DockerErrors.describe(e)), e);
        }
        try {
            docker.removeContainerCmd(oldId).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (RuntimeException e) {
            // named aside: the reconciler removes it as an orphan
            LOG.warning("Could not remove the replaced container " + shortId + " of " + sandboxName + ": "
                    + DockerErrors.describe(e));
        }
        LOG.info("Replaced the container of " + sandboxName + " (" + shortId + " → " + copy.substring(0, 12)
                + "): its engine kept a task of an earlier start and refused to start it");
    }

    /**
     * Puts things back as they were before the failed replacement: the copy and its image go, the
     * old keeps its files and an earlier layer its tag. Each step is tried; what fails is added to
     * {@code failure}.
     */
    private void undo(String sandboxName, String oldId, String copy, String committed, String previous,
                      Map<String, byte[]> handedIn, RuntimeException failure) {
        List<Runnable> steps = new ArrayList<>();
        if (copy != null) {
            steps.add(() -> docker.removeContainerCmd(copy).withForce(true).withRemoveVolumes(true).exec());
        }
        if (committed != null && previous != null) {
            // first: removing the commit untagged would take its parent with it
            steps.add(() -> docker.tagImageCmd(previous, IMAGE_REPOSITORY, sandboxName).exec());
        }
        if (committed != null) {
            steps.add(() -> docker.removeImageCmd(committed).withForce(false).exec());
        }
        handedIn.forEach((directory, tar) -> steps.add(() -> put(oldId, directory, tar)));
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /** A failed replacement after which neither container holds the sandbox's name: nothing is undone. */
    private static final class NameLost extends BackendException {
        NameLost(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private String create(String name, String image, ContainerConfig config, HostConfig host) {
        // docker-java takes no null for an array: what the old container did not set stays unset
        CreateContainerCmd create = docker.createContainerCmd(image).withName(name)
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
    private void attachOtherNetworks(String copy, InspectContainerResponse old, String created) {
        Map<String, ContainerNetwork> networks = old.getNetworkSettings() == null ? null
                : old.getNetworkSettings().getNetworks();
        if (networks == null) {
            return;
        }
        String createdOn = "default".equals(created) ? "bridge" : created;
        networks.forEach((network, endpoint) -> {
            if (!network.equals(createdOn)) {
                docker.connectToNetworkCmd().withContainerId(copy).withNetworkId(network)
                        .withContainerNetwork(new ContainerNetwork().withAliases(aliases(endpoint, old))).exec();
            }
        });
    }

    /** The old endpoint's own aliases; the engine adds the copy's short id itself. */
    private static List<String> aliases(ContainerNetwork endpoint, InspectContainerResponse old) {
        List<String> aliases = endpoint.getAliases() == null ? new ArrayList<>() : new ArrayList<>(endpoint.getAliases());
        aliases.remove(old.getId().substring(0, 12));
        return aliases;
    }

    /**
     * Copies what the old container's anonymous volumes hold into the copy's new ones at the same
     * places: the executor's key directory of a read-only root (a revive hands the key to the
     * stopped container before it starts), an image's declared volumes.
     */
    private void copyAnonymousVolumes(InspectContainerResponse old, String copy) {
        List<String> named = old.getHostConfig().getBinds() == null ? List.of()
                : Arrays.stream(old.getHostConfig().getBinds()).map(b -> b.getVolume().getPath()).toList();
        for (InspectContainerResponse.Mount mount : old.getMounts() == null
                ? List.<InspectContainerResponse.Mount>of() : old.getMounts()) {
            String path = mount.getDestination() == null ? null : mount.getDestination().getPath();
            if (path == null || mount.getName() == null || named.contains(path)) {
                continue;
            }
            // the directory's contents, unpacked into the same directory of the copy
            try (InputStream tar = files.archive(old.getId(), path + "/.")) {
                files.restore(copy, path, tar);
            } catch (IOException e) {
                throw new BackendException("the contents of " + path + " broke off: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The handed-in directories of a writable root as tar archives (directory's parent → archive of
     * the directory), those it has.
     */
    private Map<String, byte[]> handedIn(String container) {
        Map<String, byte[]> archives = new LinkedHashMap<>();
        for (String directory : HANDED_IN) {
            try (InputStream tar = docker.copyArchiveFromContainerCmd(container, directory).exec()) {
                byte[] bytes = tar.readNBytes(MAX_HANDED_IN_BYTES + 1);
                if (bytes.length > MAX_HANDED_IN_BYTES) {
                    throw new BackendException(directory + " holds more than " + MAX_HANDED_IN_BYTES + " bytes");
                }
                archives.put(parentOf(directory), bytes);
            } catch (NotFoundException e) {
                // not there: an executor sandbox has no program environment, a program no key directory
            } catch (IOException e) {
                throw new BackendException("the contents of " + directory + " broke off: " + e.getMessage(), e);
            }
        }
        return archives;
    }

    /** Writes each handed-in file of the old container over with nothing, so that its commit holds none. */
    private void blank(String container, Map<String, byte[]> handedIn) {
        handedIn.forEach((parent, tar) -> put(container, parent, blanked(tar)));
    }

    /** The archive with every regular file's content emptied, names, owners and modes kept. */
    static byte[] blanked(byte[] tar) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar));
             TarArchiveOutputStream blank = new TarArchiveOutputStream(out)) {
            blank.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.isFile()) {
                    // read past the content first: the stream finds the next entry by this one's size
                    in.transferTo(OutputStream.nullOutputStream());
                    entry.setSize(0);
                }
                blank.putArchiveEntry(entry);
                blank.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new BackendException("could not read the handed-in files' archive: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private void put(String container, String parent, byte[] tar) {
        files.restore(container, parent, new ByteArrayInputStream(tar));
    }

    private static String parentOf(String directory) {
        int slash = directory.lastIndexOf('/');
        return slash <= 0 ? "/" : directory.substring(0, slash);
    }

    /** The id of the layer an earlier replacement kept for the sandbox, or null. */
    private String keptLayer(String sandboxName) {
        try {
            return docker.inspectImageCmd(imageOf(sandboxName)).exec().getId();
        } catch (NotFoundException e) {
            return null;
        }
    }
}
