package dev.dockyard.backend;

import java.util.List;

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

    /** A node name that is not configured. */
    class UnknownNodeException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UnknownNodeException(String node, List<String> known) {
            super("unknown backend node '" + node + "'; configured nodes: " + known);
        }
    }
}
