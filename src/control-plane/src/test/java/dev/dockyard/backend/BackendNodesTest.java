package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which asked-for isolation a node's defaults already give (a warm member serves it). */
class BackendNodesTest {

    /** Nodes whose default runtime class is as given; "none" knows of none. */
    private static BackendNodes nodes(Map<String, String> defaults) {
        return new BackendNodes() {
            @Override
            public String defaultNode() {
                return "docker";
            }

            @Override
            public List<String> names() {
                return List.copyOf(defaults.keySet());
            }

            @Override
            public RuntimeBackend on(String node) {
                throw new UnsupportedOperationException();
            }

            @Override
            public RuntimeImageBuilder images(String node) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<String> defaultRuntimeClass(String node) {
                return Optional.of(defaults.get(node)).filter(c -> !c.equals("none"));
            }
        };
    }

    private static SandboxIsolation runtimeClass(String name) {
        return new SandboxIsolation(name, null, List.of());
    }

    @Test
    void shouldTakeTheNodesDefaultRuntimeClassForTheDefault() {
        BackendNodes nodes = nodes(Map.of("docker", SandboxIsolation.RUNC, "safe", SandboxIsolation.GVISOR,
                "local", "none"));

        assertTrue(nodes.isDefaultThere("docker", SandboxIsolation.DEFAULT));
        assertTrue(nodes.isDefaultThere("docker", runtimeClass(SandboxIsolation.RUNC)));
        assertFalse(nodes.isDefaultThere("docker", runtimeClass(SandboxIsolation.GVISOR)));
        assertTrue(nodes.isDefaultThere("safe", runtimeClass(SandboxIsolation.GVISOR)));
        assertFalse(nodes.isDefaultThere("safe", runtimeClass(SandboxIsolation.RUNC)), "runc is not gVisor's node's way");
        assertTrue(nodes.isDefaultThere("local", runtimeClass(SandboxIsolation.RUNC)),
                "a node without runtime classes has the ordinary way only");
        assertFalse(nodes.isDefaultThere("local", runtimeClass(SandboxIsolation.GVISOR)));
        assertFalse(nodes.isDefaultThere("docker", new SandboxIsolation(SandboxIsolation.RUNC, null, List.of("lab"))),
                "a network of its own is more than the default");
    }
}
