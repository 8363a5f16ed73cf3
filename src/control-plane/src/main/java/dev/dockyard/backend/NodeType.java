package dev.dockyard.backend;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * What serves a backend node ({@code dockyard.node.<name>.type}): a Docker engine Dockyard talks
 * to directly (the default), a namespace of a Kubernetes cluster, another Dockyard control plane
 * ({@code remote}), host processes of this machine ({@code local}), or no sandbox at all: the
 * control plane's own host ({@code cli}, see {@code backend.cli}).
 */
public enum NodeType {
    DOCKER, KUBERNETES, REMOTE, LOCAL, CLI;

    /** The node's configured type; an unknown value stops the start rather than guessing. */
    public static NodeType of(Config config, String node) {
        String value = config.getOptionalValue("dockyard.node." + node + ".type", String.class)
                .map(String::strip).filter(v -> !v.isEmpty()).orElse("docker");
        try {
            return valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("dockyard.node." + node + ".type: '" + value
                    + "' is not a node type (docker, kubernetes, remote, local or cli)");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The type of a backend by the name it records on its runtimes ({@link RuntimeBackend#name()}, e.g. "cli"). */
    public static Optional<NodeType> ofLabel(String label) {
        return Arrays.stream(values()).filter(t -> t.label().equals(label)).findFirst();
    }

    /** Whether its runtimes are processes of the control plane's own host, not sandboxes elsewhere. */
    public boolean onThisHost() {
        return this == LOCAL || this == CLI;
    }
}
