package dev.dockyard.application.e2b;

import java.time.Instant;

/**
 * One sample of E2B's sandbox metrics: what the sandbox uses (its backend's measure) against what
 * it was given. Dockyard keeps no series: each call is one sample, taken then.
 *
 * @param at         when it was taken
 * @param cpuCount   its CPUs, rounded up
 * @param cpuUsedPct CPU used, in percent of its CPUs
 * @param memUsed    memory used, bytes (page cache excluded)
 * @param memTotal   its memory limit, bytes
 * @param memCache   page cache, bytes
 * @param diskUsed   workspace disk used, bytes: 0, Dockyard does not measure it (an overlay's usage is costly)
 * @param diskTotal  its workspace disk size, bytes
 */
public record SandboxMetric(Instant at, int cpuCount, double cpuUsedPct, long memUsed, long memTotal, long memCache,
                            long diskUsed, long diskTotal) {
}
