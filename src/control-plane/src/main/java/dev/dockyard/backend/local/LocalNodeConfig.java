package dev.dockyard.backend.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.eclipse.microprofile.config.Config;

/**
 * A local node's settings, {@code dockyard.node.<name>.*} (docs/backends.md, "Local backend"):
 * {@code root} (its sandboxes' directories and records), {@code bundle} (the executor bundle,
 * default {@code dockyard.images.bundle}), {@code user} (the unprivileged user sandboxes run as
 * when the control plane is root), {@code stop-grace} (seconds between SIGTERM and SIGKILL),
 * {@code images} (the image names it serves with the executor, default {@code dockyard.sandbox.image}),
 * {@code cgroup} ({@code auto}: cgroup v2 limits where the host lets this process make them;
 * {@code none}) and {@code cgroup-root}.
 *
 * @param archiveOwner the numeric user the workspace's files get in an archive taken here, so that
 *                     a Docker sandbox's user owns them once moved there ({@code dockyard.sandbox.user})
 */
public record LocalNodeConfig(String node, String instance, Path root, Path bundle, String user, Duration stopGrace,
                              List<String> images, boolean cgroups, Path cgroupRoot, String archiveOwner) {

    public static final String DEFAULT_USER = "dockyard-sandbox";
    public static final String DEFAULT_ROOT = "/var/tmp/dockyard-local";

    public LocalNodeConfig {
        images = List.copyOf(images);
    }

    public static LocalNodeConfig read(Config config, String node, String instance, Path defaultBundle,
                                       String sandboxImage, String archiveOwner) {
        String prefix = "dockyard.node." + node + ".";
        Path root = Path.of(config.getOptionalValue(prefix + "root", String.class)
                .orElse(DEFAULT_ROOT + "/" + instance + "-" + node)).toAbsolutePath();
        Path bundle = config.getOptionalValue(prefix + "bundle", String.class).map(Path::of).orElse(defaultBundle)
                .toAbsolutePath();
        String user = config.getOptionalValue(prefix + "user", String.class).map(String::strip).orElse(DEFAULT_USER);
        long grace = config.getOptionalValue(prefix + "stop-grace", Long.class).orElse(5L);
        if (grace < 0 || grace > 300) {
            throw new IllegalStateException(prefix + "stop-grace: " + grace + " is not between 0 and 300 seconds");
        }
        List<String> images = config.getOptionalValue(prefix + "images", String.class)
                .map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
                .orElse(List.of(sandboxImage));
        String cgroup = config.getOptionalValue(prefix + "cgroup", String.class).map(String::strip).orElse("auto");
        if (!cgroup.equals("auto") && !cgroup.equals("none")) {
            throw new IllegalStateException(prefix + "cgroup: '" + cgroup + "' is not auto or none");
        }
        Path cgroupRoot = Path.of(config.getOptionalValue(prefix + "cgroup-root", String.class).orElse("/sys/fs/cgroup"));
        return new LocalNodeConfig(node, instance, root, bundle, user, Duration.ofSeconds(grace), images,
                cgroup.equals("auto"), cgroupRoot, archiveOwner);
    }

    /** The same node running {@code newBundle} (its staged copy). */
    public LocalNodeConfig withBundle(Path newBundle) {
        return new LocalNodeConfig(node, instance, root, newBundle, user, stopGrace, images, cgroups, cgroupRoot,
                archiveOwner);
    }

    public Path sandboxes() {
        return root.resolve("sandboxes");
    }

    public Path records() {
        return root.resolve("records");
    }
}
