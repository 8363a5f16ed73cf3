package dev.dockyard.backend;

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
