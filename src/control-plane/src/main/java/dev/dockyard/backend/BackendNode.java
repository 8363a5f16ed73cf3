package dev.dockyard.backend;

import java.util.Optional;

/**
 * One configured node, as its {@link NodeFactory} opened it: the backend that runs its sandboxes,
 * the builder of its runtime images (built where their sandboxes run), and what confinement it can
 * give beyond the default. Closed when the control plane stops.
 */
public interface BackendNode extends AutoCloseable {

    RuntimeBackend backend();

    RuntimeImageBuilder images();

    /**
     * Checks that this node, named {@code name}, can give a sandbox {@code isolation}. The default,
     * for nodes that know of no runtime classes, GPUs or networks: only the default isolation.
     *
     * @throws UnsupportedIsolationException naming the node when it cannot
     */
    default void requireIsolation(String name, SandboxIsolation isolation) {
        requireDefault(name, isolation);
    }

    /**
     * The runtime class ({@link SandboxIsolation#RUNC}, {@link SandboxIsolation#GVISOR}) that this
     * node's sandboxes get when their request names none, when the node knows it: a request that
     * names that class is served as one that names none (a warm pool's members, booted with the
     * node's default, serve it). The default: unknown.
     */
    default Optional<String> defaultRuntimeClass() {
        return Optional.empty();
    }

    /** Refuses any isolation but the default, for node {@code name} that offers nothing else. */
    static void requireDefault(String name, SandboxIsolation isolation) {
        if (!isolation.isDefault()) {
            throw new UnsupportedIsolationException(name, "backend node '" + name + "' offers no runtime class, GPUs "
                    + "or extra networks");
        }
    }

    /** Releases what the node holds (clients, watches, files); the default holds nothing. */
    @Override
    default void close() {
    }
}
