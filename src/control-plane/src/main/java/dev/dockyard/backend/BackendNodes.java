package dev.dockyard.backend;

import java.util.List;
import java.util.Optional;

/**
 * The backend nodes this control plane places sandboxes on: named endpoints (MP Config
 * {@code dockyard.nodes}), each served by its own {@link RuntimeBackend}. Every runtime records
 * its node, and every backend call for it goes to that node; migration moves a runtime from one
 * node to another.
 */
public interface BackendNodes {

    /** Where new runtimes go: the first configured node. */
    String defaultNode();

    /**
     * The node a recorded or requested name means: the name itself, or the default node for none
     * (runtimes recorded before nodes existed, requests that name no node).
     */
    default String named(String node) {
        return node == null ? defaultNode() : node;
    }

    /** Every configured node, the default first. */
    List<String> names();

    /**
     * The backend of {@code node}; {@code null} means the default node (runtimes recorded before
     * nodes existed).
     *
     * @throws UnknownNodeException when no such node is configured
     */
    RuntimeBackend on(String node);

    /**
     * The image builder of {@code node} (null: the default node): runtime images are built where
     * their sandboxes run.
     *
     * @throws UnknownNodeException when no such node is configured
     */
    RuntimeImageBuilder images(String node);

    /**
     * Checks that {@code node} can give a sandbox {@code isolation} (its engine offers the runtime
     * class, the node declares GPUs, the networks exist there); nodes that know of no such options
     * take only the default.
     *
     * @throws UnsupportedIsolationException naming the node when it cannot
     */
    default void requireIsolation(String node, SandboxIsolation isolation) {
        BackendNode.requireDefault(node, isolation);
    }

    /**
     * How {@code node}'s sandboxes run their executor when their request names no way
     * ({@code dockyard.node.<name>.executor-server}, see {@link ExecutorServer}); null means the
     * default node. The default, for nodes that know of no such setting: {@link ExecutorServer#DEFAULT}.
     */
    default ExecutorServer executorServer(String node) {
        return ExecutorServer.DEFAULT;
    }

    /**
     * The runtime class {@code node}'s sandboxes get when their request names none, when known
     * (see {@link BackendNode#defaultRuntimeClass()}).
     */
    default Optional<String> defaultRuntimeClass(String node) {
        return Optional.empty();
    }

    /**
     * Whether a sandbox of {@code isolation} on {@code node} is the same as one of the node's
     * default isolation: the default itself, or only a runtime class that is the node's default.
     * On a node that knows of no runtime classes (local processes, a CLI, a remote Dockyard), runc,
     * the ordinary way, is its only way: OpenHands' SDK names {@code sysbox-runc} in every start,
     * which must not cost it those nodes.
     */
    default boolean isDefaultThere(String node, SandboxIsolation isolation) {
        if (isolation.isDefault()) {
            return true;
        }
        SandboxIsolation classOnly = new SandboxIsolation(isolation.runtimeClass(), null, List.of());
        return classOnly.equals(isolation) && defaultRuntimeClass(node).orElse(SandboxIsolation.RUNC)
                .equals(isolation.runtimeClass());
    }

    /** A node name that is not configured. */
    class UnknownNodeException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UnknownNodeException(String node, List<String> known) {
            super("unknown backend node '" + node + "'; configured nodes: " + known);
        }
    }
}
