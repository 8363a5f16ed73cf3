package dev.dockyard.pool;

import java.util.List;

/**
 * A pool's settings as declared (configuration or API), validated, every default applied.
 * {@code program} is null for a pool of Dockyard's executor.
 */
public record PoolSettings(String name, String image, double cpus, int memoryMb, List<String> plugins, String node,
                           int size, int maxBooting, PoolProgram program) {

    public PoolSettings {
        plugins = plugins.stream().sorted().distinct().toList();
    }

    /** A pool of Dockyard's executor. */
    public PoolSettings(String name, String image, double cpus, int memoryMb, List<String> plugins, String node,
                        int size, int maxBooting) {
        this(name, image, cpus, memoryMb, plugins, node, size, maxBooting, null);
    }

    public String shape() {
        return PoolDefinition.shape(image, cpus, memoryMb, plugins, node, program);
    }
}
