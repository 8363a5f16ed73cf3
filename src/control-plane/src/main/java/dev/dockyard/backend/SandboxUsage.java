package dev.dockyard.backend;

/**
 * What a sandbox uses right now, as its backend measures it (Docker: one sample of the engine's
 * stats, the same numbers as {@code docker stats}).
 *
 * @param cpuPercent  CPU used since the previous sample, in percent of the node's CPUs as the
 *                    engine counts them (100 per fully used CPU)
 * @param memoryBytes memory used, page cache excluded
 * @param cacheBytes  page cache it holds
 */
public record SandboxUsage(double cpuPercent, long memoryBytes, long cacheBytes) {
}
