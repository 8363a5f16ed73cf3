package dev.dockyard.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.tenancy.Role;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Who may use which node: cli and local nodes are admins' unless granted, the others everyone's unless listed. */
class NodeAccessTest {

    private final FakeNodes nodes = new FakeNodes("docker", "host", "procs");
    private final TestConfig config = new TestConfig();
    private final NodeAccess access = Placements.access(nodes, config);

    @BeforeEach
    void types() {
        nodes.backend("host").type = "cli";
        nodes.backend("procs").type = "local";
    }

    @Test
    void shouldKeepCliAndLocalNodesToAdminsByDefault() {
        assertTrue(access.mayUse("docker", "alice", Role.USER));
        assertFalse(access.mayUse("host", "alice", Role.USER), "no sandbox: the host's own user");
        assertFalse(access.mayUse("procs", "alice", Role.USER));
        assertTrue(access.mayUse("host", "root", Role.ADMIN));
        assertTrue(access.mayUse("procs", "root", Role.ADMIN));
    }

    @Test
    void shouldOpenANodeToTheUsersItsAllowedUsersName() {
        config.nodeAllowedUsers.put("host", Set.of("alice"));
        config.nodeAllowedUsers.put("procs", Set.of(NodeAccess.EVERY_USER));
        assertTrue(access.mayUse("host", "alice", Role.USER));
        assertFalse(access.mayUse("host", "bob", Role.USER));
        assertTrue(access.mayUse("procs", "bob", Role.USER), "* is every user");
        assertTrue(access.mayUse("host", "root", Role.ADMIN), "admins whether listed or not");
    }

    @Test
    void shouldCloseADockerNodeToUsersItsAllowedUsersDoNotName() {
        config.nodeAllowedUsers.put("docker", Set.of("alice"));
        assertTrue(access.mayUse("docker", "alice", Role.USER));
        assertFalse(access.mayUse("docker", "bob", Role.USER));
    }

    @Test
    void shouldRefuseNamingTheNodeButNotWhoMayUseIt() {
        config.nodeAllowedUsers.put("host", Set.of("alice"));
        NodeForbiddenException refused = assertThrows(NodeForbiddenException.class,
                () -> access.require("host", "bob", Role.USER));
        assertEquals("host", refused.node());
        assertTrue(refused.getMessage().contains("'host'"), refused.getMessage());
        assertFalse(refused.getMessage().contains("alice"), "other users' grants stay unsaid: " + refused.getMessage());
        assertThrows(BackendNodes.UnknownNodeException.class, () -> access.require("nowhere", "bob", Role.USER));
        access.require("docker", "bob", Role.USER);
    }
}
