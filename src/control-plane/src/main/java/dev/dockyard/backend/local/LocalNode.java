package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.InspectOnlyImages;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * A node of type {@code local}: its sandbox user, its cgroup limits, its backend and its images.
 * Making it also closes the control plane's own files to other users (its sandboxes' user among
 * them), which Liberty leaves readable: the server's output directory (logs, the Derby database,
 * the transaction log) and its configuration directory lose their group and other permissions.
 */
public final class LocalNode implements BackendNode {

    private static final Logger LOG = Logger.getLogger(LocalNode.class.getName());

    private final LocalBackend backend;
    private final RuntimeImageBuilder images;

    public LocalNode(LocalNodeConfig configured, Clock clock) {
        SandboxUser user = SandboxUser.ensure(configured.user());
        LocalNodeConfig config = configured.withBundle(StagedBundle.stage(configured.bundle(), configured.root(),
                noSandboxes(configured)));
        if (user.switched()) {
            closeControlPlaneFiles();
        }
        CgroupLimits cgroups = config.cgroups()
                ? CgroupLimits.probe(config.cgroupRoot(), "dockyard-" + config.instance() + "-" + config.node())
                : CgroupLimits.off("dockyard.node." + config.node() + ".cgroup is none");
        this.backend = new LocalBackend(config, user, ProcessTable.host(), cgroups, clock);
        this.images = images(config);
        LOG.info("Node '" + config.node() + "': local sandboxes under " + config.root() + " as user " + user.name()
                + " (uid " + user.uid() + "), bundle " + config.bundle() + "; resource limits "
                + (cgroups.enabled() ? "by " + cgroups : "OFF: " + cgroups.reason()));
        if (!Files.isExecutable(config.bundle().resolve("bin/start-executor"))) {
            LOG.warning("Node '" + config.node() + "': no executor bundle at " + config.bundle()
                    + "; its health check fails until there is one");
        }
    }

    /**
     * A local node's images: it runs no image, only the executor bundle, which serves the image names
     * the node is configured with (Dockyard's runtime image by default). Any other image is not on
     * this node, and none can be built here: the request is refused, naming the node, rather than
     * served by something else than it asked for.
     */
    static RuntimeImageBuilder images(LocalNodeConfig config) {
        return new InspectOnlyImages(image -> config.images().contains(image)
                ? Optional.of(InspectOnlyImages.runtimeImage(bundleId(config), image)) : Optional.empty(),
                () -> new ImageBuildException("node '" + config.node() + "' is a local node: it runs the executor "
                        + "bundle as host processes, for the images " + config.images() + ", and builds no images"));
    }

    /** Changes with the bundle's executor: a warm pool's members of an older bundle are replaced. */
    private static String bundleId(LocalNodeConfig config) {
        Path war = config.bundle().resolve("wlp/usr/servers/executor/apps/executor.war");
        try {
            return "local-bundle:" + config.bundle() + "@" + Files.getLastModifiedTime(war).toMillis() + "/"
                    + Files.size(war);
        } catch (IOException e) {
            return "local-bundle:" + config.bundle();
        }
    }

    @Override
    public LocalBackend backend() {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images() {
        return images;
    }

    /** Whether the node has no sandbox records: staged bundles other than today's are unused then. */
    private static boolean noSandboxes(LocalNodeConfig config) {
        try (Stream<Path> records = Files.list(config.records())) {
            return records.noneMatch(p -> p.getFileName().toString().endsWith(".properties"));
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The server's output directory (its working directory) and configuration directory, owner-only. */
    private static void closeControlPlaneFiles() {
        Set<Path> dirs = new LinkedHashSet<>();
        dirs.add(Path.of("").toAbsolutePath());
        for (String property : new String[] {"server.output.dir", "server.config.dir"}) {
            String value = System.getProperty(property);
            if (value != null && !value.isBlank()) {
                dirs.add(Path.of(value).toAbsolutePath().normalize());
            }
        }
        for (Path dir : dirs) {
            try {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
                if (permissions.removeIf(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
                    Files.setPosixFilePermissions(dir, permissions);
                    LOG.info("Closed " + dir + " to other users: local sandboxes must not read the control plane's files");
                }
            } catch (IOException | UnsupportedOperationException e) {
                LOG.warning("Could not close " + dir + " to other users: " + e.getMessage());
            }
        }
    }
}
