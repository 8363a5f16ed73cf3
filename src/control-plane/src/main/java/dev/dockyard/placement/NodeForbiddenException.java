package dev.dockyard.placement;

/**
 * A user named a backend node (or would be placed on one) that {@link NodeAccess} does not open to
 * them: answered 403, naming the node only, never who else may use it.
 */
public class NodeForbiddenException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String node;

    public NodeForbiddenException(String node, String userId) {
        super("user '" + userId + "' may not place runtimes on backend node '" + node + "': an admin grants it "
                + "with dockyard.node." + node + ".allowed-users", null, false, false);
        this.node = node;
    }

    /** A user for whom no configured node is open. */
    public NodeForbiddenException(String userId) {
        super("no backend node is open to user '" + userId + "': an admin grants one with "
                + "dockyard.node.<name>.allowed-users", null, false, false);
        this.node = null;
    }

    /** The node refused, or null when no node is open to the user. */
    public String node() {
        return node;
    }
}
