package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.CpuStatsConfig;
import com.github.dockerjava.api.model.MemoryStatsConfig;
import com.github.dockerjava.api.model.Statistics;
import com.github.dockerjava.api.model.StatsConfig;
import dev.dockyard.backend.SandboxUsage;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One sample of a container's stats ({@code GET /containers/{id}/stats?stream=false}): CPU in
 * percent since the engine's previous reading and memory without the page cache, computed as
 * {@code docker stats} computes them. Bounded: no answer within {@link #WAIT_SECONDS} is no sample.
 */
final class ContainerUsage {

    static final long WAIT_SECONDS = 5;

    private final DockerClient docker;

    ContainerUsage(DockerClient docker) {
        this.docker = docker;
    }

    Optional<SandboxUsage> sample(String sandboxName) {
        AtomicReference<Statistics> sample = new AtomicReference<>();
        try (ResultCallback.Adapter<Statistics> callback = new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Statistics statistics) {
                sample.compareAndSet(null, statistics);
            }
        }) {
            docker.statsCmd(sandboxName).withNoStream(true).exec(callback).awaitCompletion(WAIT_SECONDS,
                    TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            // the engine's refusal (DockerException) or its transport's failure: no sample this time
            return Optional.empty();
        }
        return Optional.ofNullable(sample.get()).map(ContainerUsage::usage);
    }

    /** docker stats' numbers: CPU delta over system delta times the online CPUs; memory less the inactive files (cgroup v2) or cache (v1). */
    static SandboxUsage usage(Statistics statistics) {
        double cpu = 0;
        CpuStatsConfig now = statistics.getCpuStats();
        CpuStatsConfig before = statistics.getPreCpuStats();
        if (now != null && before != null && now.getCpuUsage() != null && before.getCpuUsage() != null) {
            long used = value(now.getCpuUsage().getTotalUsage()) - value(before.getCpuUsage().getTotalUsage());
            long system = value(now.getSystemCpuUsage()) - value(before.getSystemCpuUsage());
            long cpus = value(now.getOnlineCpus());
            if (used > 0 && system > 0) {
                cpu = (double) used / system * Math.max(1, cpus) * 100.0;
            }
        }
        MemoryStatsConfig memory = statistics.getMemoryStats();
        long usage = memory == null ? 0 : value(memory.getUsage());
        StatsConfig details = memory == null ? null : memory.getStats();
        long cache = 0;
        if (details != null) {
            cache = details.getInactiveFile() != null ? details.getInactiveFile() : value(details.getCache());
        }
        return new SandboxUsage(cpu, Math.max(0, usage - cache), cache);
    }

    private static long value(Long number) {
        return number == null ? 0 : number;
    }
}
