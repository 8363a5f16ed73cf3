package dev.dockyard.pool;

import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sandbox a pool member is: named and labelled as the runtime that will claim it, of the
 * pool's shape, booting in the background (at the lowest CPU weight, see
 * {@link SandboxSpec#background()}). A member of Dockyard's executor is started as its runtime's
 * would be; a member of another image's program is booted dormant, waiting for the init that the
 * claim sends.
 */
final class MemberSpecs {

    private MemberSpecs() {
    }

    /** A member running Dockyard's executor on {@code runtimeImage}. */
    static SandboxSpec executor(PoolDefinition pool, PoolMember member, String runtimeImage, DockyardConfig config) {
        // the Remote Runtime API's work ports too: a /start of a Dockyard image may claim it
        return new SandboxSpec(member.id(), "", config.instance(), member.containerName(), runtimeImage, pool.cpus(),
                config.sandboxBootCpus(), pool.memoryMb(), config.sandboxPidsLimit(), config.sandboxUser(),
                config.executorPort(), member.sessionKey(), pool.plugins(), null,
                config.runtimeApiWorkPorts()).withLabels(Map.of(Labels.POOL, pool.name())).inBackground()
                // part of the pool's shape: a claim gets a member started as its runtime would be
                .withExecutorServer(pool.executorServer().orElse(null));
    }

    /**
     * A member of another image's server, booted dormant: its environment file holds the pool's
     * variables, the deferred-init switch, and the member's key as both its init key and its
     * session key; the ports are those the Remote Runtime API publishes for such an image.
     *
     * <p>The session key is there at boot because OpenHands' agent server binds to all interfaces
     * only when it has one ({@code __main__.py}: loopback otherwise, where Dockyard cannot reach
     * it) and gives its VS Code that key as connection token. It is the key the claiming runtime
     * keeps as its sandbox key, and the init confirms it: clients never hold it (they have the
     * runtime's service key, which the proxy exchanges for it).
     */
    static SandboxSpec dormant(PoolDefinition pool, PoolProgram program, PoolMember member, DockyardConfig config) {
        Map<String, String> environment = new LinkedHashMap<>(program.environment());
        for (String variable : config.programSessionKeyVariables()) {
            environment.put(variable, member.sessionKey());
        }
        environment.put("OH_DEFERRED_INIT", "true");
        environment.put("OH_SECRET_KEY", member.sessionKey());
        environment.put("RUNTIME_ID", member.id());
        // its stateless services (VS Code) start dormant: they need their path now, not at the init
        environment.put("OH_VSCODE_BASE_PATH", "/" + member.id() + "/vscode");
        environment.putIfAbsent("VSCODE_PORT", String.valueOf(config.runtimeApiVscodePort()));
        List<Integer> ports = new ArrayList<>();
        ports.add(config.runtimeApiVscodePort());
        ports.addAll(config.runtimeApiWorkPorts());
        SandboxProcess process = new SandboxProcess(program.command(), program.workingDir(), environment,
                program.fsGroup());
        return new SandboxSpec(member.id(), "", config.instance(), member.containerName(), pool.image(), pool.cpus(),
                pool.cpus(), pool.memoryMb(), config.sandboxPidsLimit(), program.user(), config.runtimeApiAgentPort(),
                member.sessionKey(), List.of(), process, ports).withLabels(Map.of(Labels.POOL, pool.name())).inBackground();
    }
}
