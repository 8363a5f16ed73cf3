package dev.dockyard.backend.docker;

import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.RestartPolicy;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixed part of every sandbox container's settings, whatever its node: its ports published
 * on a loopback address of its own only ({@link SandboxAddresses}, at host ports Docker picks), CPU
 * and memory limits (no swap beyond the memory), a pids limit, an init process, all capabilities
 * dropped, no new privileges and no restart by the engine. A sandbox that boots in the background
 * runs at the lowest CPU weight until it is settled ({@link ContainerLifecycle#settle}). What a node adds on top of this is
 * {@link SandboxConfinement}'s.
 */
final class SandboxHardening {

    static final String WILDCARD_HOST = "unspecified-address:0.0.0.0";
    /** The engine's default CPU weight (cpu.shares), which every sandbox in use has. */
    static final int NORMAL_CPU_SHARES = 1024;
    /** The lowest weight the engine takes: a background boot runs on what others leave. */
    static final int BACKGROUND_CPU_SHARES = 2;

    private SandboxHardening() {
    }

    /** The executor's port first, then the sandbox's other service ports, each once. */
    static List<ExposedPort> exposedPorts(SandboxSpec spec) {
        List<ExposedPort> exposed = new ArrayList<>();
        exposed.add(ExposedPort.tcp(spec.executorPort()));
        spec.servicePorts().stream().filter(p -> p != spec.executorPort()).distinct()
                .forEach(p -> exposed.add(ExposedPort.tcp(p)));
        return exposed;
    }

    /** The container's host settings for {@code spec}, its {@code exposed} ports published on its loopback address. */
    static HostConfig hostConfig(SandboxSpec spec, List<ExposedPort> exposed) {
        long memoryBytes = spec.memoryMb() * 1024L * 1024L;
        HostConfig host = HostConfig.newHostConfig()
                .withPortBindings(exposed.stream()
                        .map(p -> new PortBinding(Ports.Binding.bindIp(SandboxAddresses.of(spec.name())), p)).toList())
                .withNanoCPUs(nanoCpus(spec.bootCpus() == 0 ? 0 : Math.max(spec.bootCpus(), spec.cpus())))
                .withCpuShares(spec.background() ? BACKGROUND_CPU_SHARES : NORMAL_CPU_SHARES)
                .withMemory(memoryBytes)
                .withMemorySwap(memoryBytes)
                .withPidsLimit(spec.pidsLimit())
                .withInit(true)
                // Liberty names its wildcard address once it listens (a reverse lookup of 0.0.0.0):
                // answered from /etc/hosts, not DNS, which costs 10 s of boot where DNS is unreachable
                .withExtraHosts(WILDCARD_HOST)
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges"))
                .withRestartPolicy(RestartPolicy.noRestart());
        SandboxProcess process = spec.process();
        if (process != null && process.fsGroup() != null) {
            host.withGroupAdd(List.of(String.valueOf(process.fsGroup())));
        }
        return host;
    }

    /** A CPU limit in the engine's unit, billionths of a CPU (0: none). */
    static long nanoCpus(double cpus) {
        return (long) (cpus * 1_000_000_000L);
    }
}
