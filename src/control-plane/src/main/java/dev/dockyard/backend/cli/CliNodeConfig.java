package dev.dockyard.backend.cli;

import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * A {@code cli} node's configuration: {@code dockyard.node.<name>.root} (where its runtimes'
 * directories go; required) and {@code dockyard.node.<name>.i-understand-no-isolation} (must be
 * {@code true}: the administrator acknowledges that agents' commands run as the control plane's
 * user on its host). {@code runtimeImage}: the image name that means Dockyard's executor;
 * {@code sandboxUid}: the owner a workspace archive gives its files, so that a runtime migrated to
 * a sandbox finds them its own there.
 */
public record CliNodeConfig(String node, Path root, String runtimeImage, int sandboxUid) {

    public static final String ACKNOWLEDGEMENT = "i-understand-no-isolation";

    /**
     * @throws IllegalStateException when the root is missing or relative, or the absence of
     *                               isolation is not acknowledged: the control plane does not start
     */
    public static CliNodeConfig read(Config config, String node, String runtimeImage, int sandboxUid) {
        String prefix = "dockyard.node." + node + ".";
        boolean acknowledged = config.getOptionalValue(prefix + ACKNOWLEDGEMENT, String.class)
                .map(String::strip).filter("true"::equalsIgnoreCase).isPresent();
        if (!acknowledged) {
            throw new IllegalStateException(prefix + "type=cli runs agents' commands on this host as the control "
                    + "plane's own user, with no sandbox; set " + prefix + ACKNOWLEDGEMENT + "=true to accept that "
                    + "(docs/backends.md \"CLI backend\")");
        }
        Optional<String> root = config.getOptionalValue(prefix + "root", String.class).map(String::strip)
                .filter(r -> !r.isEmpty());
        if (root.isEmpty() || !Path.of(root.get()).isAbsolute()) {
            throw new IllegalStateException(prefix + "root: a cli node needs the absolute path of the directory its "
                    + "runtimes' directories go in" + root.map(r -> " (not '" + r + "')").orElse(""));
        }
        return new CliNodeConfig(node, Path.of(root.get()).normalize(), runtimeImage, sandboxUid);
    }
}
