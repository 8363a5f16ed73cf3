package dev.dockyard.pool;

import dev.dockyard.backend.ExecutorServer;
import java.util.List;

/**
 * A pool's settings as declared (configuration or API), validated, every default applied.
 * {@code program} is null for a pool of Dockyard's executor. {@code executorServer} is how its
 * members start the executor (null: as its node's sandboxes do, which {@link WarmPools#declare}
 * settles before the pool is kept); a pool of another image's program has none.
 */
public record PoolSettings(String name, String image, double cpus, int memoryMb, List<String> plugins, String node,
                           int size, int maxBooting, PoolProgram program, ExecutorServer executorServer) {

    public PoolSettings {
        plugins = plugins.stream().sorted().distinct().toList();
    }

    /** A pool of Dockyard's executor, started as its node's sandboxes are. */
    public PoolSettings(String name, String image, double cpus, int memoryMb, List<String> plugins, String node,
                        int size, int maxBooting) {
        this(name, image, cpus, memoryMb, plugins, node, size, maxBooting, null, null);
    }

    /** The same settings, an executor pool that names no executor server taking {@code nodeDefault}. */
    PoolSettings onNodeDefault(ExecutorServer nodeDefault) {
        if (program != null || executorServer != null) {
            return this;
        }
        return new PoolSettings(name, image, cpus, memoryMb, plugins, node, size, maxBooting, null, nodeDefault);
    }

    public String shape() {
        return PoolDefinition.shape(image, cpus, memoryMb, plugins, node, program, executorServer);
    }
}
