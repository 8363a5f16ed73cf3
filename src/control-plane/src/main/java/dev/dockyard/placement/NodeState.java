package dev.dockyard.placement;

/** One node as placement sees it: its capacity, what it holds, its health and its backend's type. */
public record NodeState(String name, String type, NodeCapacity capacity, NodeUsage usage, NodeReport health) {

    /** Free runtime slots; {@link Long#MAX_VALUE} when unbounded. */
    public long freeRuntimes() {
        return capacity.maxRuntimes() == null ? Long.MAX_VALUE : capacity.maxRuntimes() - (long) usage.runtimes();
    }

    /** Free memory (MB); {@link Long#MAX_VALUE} when unbounded. */
    public long freeMemoryMb() {
        return capacity.maxMemoryMb() == null ? Long.MAX_VALUE : capacity.maxMemoryMb() - usage.memoryMb();
    }

    /** Whether a runtime of {@code memoryMb} fits what is left, health aside. */
    public boolean fits(int memoryMb) {
        return freeRuntimes() >= 1 && freeMemoryMb() >= memoryMb;
    }
}
