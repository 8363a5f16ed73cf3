package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.model.Statistics;
import dev.dockyard.backend.SandboxUsage;
import org.junit.jupiter.api.Test;

/** One sample of the engine's stats, in docker stats' numbers, read as docker-java reads the engine's JSON. */
class ContainerUsageTest {

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private static SandboxUsage usage(String stats) throws Exception {
        return ContainerUsage.usage(JSON.readValue(stats, Statistics.class));
    }

    @Test
    void shouldComputeCpuAndMemoryAsDockerStatsDoesOnCgroupV2() throws Exception {
        // 2 online CPUs; the container used 0.5 s of CPU while the system counted 2 s: 50 % (of one CPU)
        SandboxUsage usage = usage("""
                {"cpu_stats": {"cpu_usage": {"total_usage": 1500000000}, "system_cpu_usage": 12000000000,
                               "online_cpus": 2},
                 "precpu_stats": {"cpu_usage": {"total_usage": 1000000000}, "system_cpu_usage": 10000000000},
                 "memory_stats": {"usage": 104857600, "stats": {"inactive_file": 8388608}}}""");
        assertEquals(50.0, usage.cpuPercent(), 0.0001);
        assertEquals(104857600 - 8388608, usage.memoryBytes(), "the page cache left out");
        assertEquals(8388608, usage.cacheBytes());
    }

    @Test
    void shouldTakeTheCacheOfCgroupV1AndAnswerZeroForAFirstSample() throws Exception {
        SandboxUsage usage = usage("""
                {"cpu_stats": {"cpu_usage": {"total_usage": 5}, "system_cpu_usage": 10, "online_cpus": 1},
                 "precpu_stats": {},
                 "memory_stats": {"usage": 1000, "stats": {"cache": 400}}}""");
        assertEquals(0.0, usage.cpuPercent(), "no earlier reading: no CPU figure");
        assertEquals(600, usage.memoryBytes());
        assertEquals(400, usage.cacheBytes());
    }

    @Test
    void shouldAnswerNothingUsedForAStoppedContainersEmptyStats() throws Exception {
        assertEquals(new SandboxUsage(0, 0, 0), usage("{}"));
    }
}
