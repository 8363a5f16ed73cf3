package dev.dockyard.pool;

import java.util.List;

/** A pool's settings as declared (configuration or API), validated, every default applied. */
public record PoolSettings(String name, String image, double cpus, int memoryMb, List<String> plugins, String node,
                           int size, int maxBooting) {

    public PoolSettings {
        plugins = plugins.stream().sorted().distinct().toList();
    }

    public String shape() {
        return PoolDefinition.shape(image, cpus, memoryMb, plugins, node);
    }
}
