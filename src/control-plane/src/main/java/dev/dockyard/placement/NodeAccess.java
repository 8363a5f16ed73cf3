package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.NodeType;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.Set;

/**
 * Who may place runtimes on a backend node: the one rule every path that places a runtime asks
 * (provision, start, fork, restore, migration, a warm claim, automatic placement).
 *
 * <ul>
 *   <li>Admins may use every node.</li>
 *   <li>A node with {@code dockyard.node.<name>.allowed-users} set (comma-separated user ids,
 *       {@code *} for every user) is open to those users only.</li>
 *   <li>Without it, {@code cli} and {@code local} nodes are admins only: their runtimes run on this
 *       host, a cli node's with no sandbox at all as the control plane's own user; docker,
 *       kubernetes and remote nodes are open to every user.</li>
 * </ul>
 *
 * A node a caller may not use is never chosen for them automatically; naming it is refused with
 * a {@link NodeForbiddenException} (a 403) that names the node and nothing of its settings.
 */
@ApplicationScoped
public class NodeAccess {

    /** In {@code allowed-users}: every user. */
    public static final String EVERY_USER = "*";

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    /** Whether {@code userId} of {@code role} may place runtimes on {@code node} (a configured one). */
    public boolean mayUse(String node, String userId, Role role) {
        if (role == Role.ADMIN) {
            return true;
        }
        Optional<Set<String>> allowed = config.nodeAllowedUsers(node);
        if (allowed.isPresent()) {
            return allowed.get().contains(EVERY_USER) || allowed.get().contains(userId);
        }
        return !onThisHost(node);
    }

    /**
     * @throws NodeForbiddenException when the user may not use the node
     * @throws BackendNodes.UnknownNodeException when no such node is configured
     */
    public void require(String node, String userId, Role role) {
        if (!mayUse(node, userId, role)) {
            throw new NodeForbiddenException(node, userId);
        }
    }

    /** A cli or local node: its runtimes are processes of this host. */
    private boolean onThisHost(String node) {
        return NodeType.ofLabel(nodes.on(node).name()).map(NodeType::onThisHost).orElse(false);
    }
}
