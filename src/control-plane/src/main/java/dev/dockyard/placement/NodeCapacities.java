package dev.dockyard.placement;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Each node's capacity as configured ({@code dockyard.node.<name>.max-runtimes}, {@code .max-memory-mb}). */
@ApplicationScoped
public class NodeCapacities {

    @Inject
    DockyardConfig config;

    public NodeCapacity of(String node) {
        return new NodeCapacity(config.nodeMaxRuntimes(node).orElse(null), config.nodeMaxMemoryMb(node).orElse(null));
    }
}
