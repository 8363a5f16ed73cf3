package dev.dockyard.placement;

/**
 * What a node may hold at once: live runtimes and the memory they are given. Null is unbounded.
 *
 * @param maxRuntimes live runtimes at most, or null
 * @param maxMemoryMb the sum of their memory limits at most (MB), or null
 */
public record NodeCapacity(Integer maxRuntimes, Integer maxMemoryMb) {

    public static final NodeCapacity UNBOUNDED = new NodeCapacity(null, null);

    public boolean bounded() {
        return maxRuntimes != null || maxMemoryMb != null;
    }
}
