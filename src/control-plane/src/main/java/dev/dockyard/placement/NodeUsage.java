package dev.dockyard.placement;

/**
 * What a node holds now: its live runtimes (starting, ready, paused, hibernated: a hibernated one
 * may be resumed at any time and must find its room) and the sum of their memory limits and of its
 * warm pool members' (which hold memory but no runtime slot).
 */
public record NodeUsage(int runtimes, long memoryMb) {

    public static final NodeUsage NONE = new NodeUsage(0, 0);

    public NodeUsage plus(int memory) {
        return new NodeUsage(runtimes + 1, memoryMb + memory);
    }
}
