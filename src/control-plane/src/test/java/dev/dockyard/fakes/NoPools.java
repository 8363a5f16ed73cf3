package dev.dockyard.fakes;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.pool.PoolKeeper;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.WarmPools;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Pools for unit tests that are not about pools: none declared, no members. */
public final class NoPools {

    private NoPools() {
    }

    public static WarmPools warmPools() {
        return new WarmPools() {
            @Override
            public Optional<String> match(String image, double cpus, int memoryMb, List<String> plugins, String node,
                                          PoolProgram program, ExecutorServer executorServer) {
                return Optional.empty();
            }
        };
    }

    public static PoolKeeper keeper() {
        return new PoolKeeper() {
            @Override
            public Set<String> memberIds() {
                return Set.of();
            }

            @Override
            public void tendSoon() {
            }

            @Override
            public void claimedFrom(String pool) {
            }
        };
    }
}
