package dev.dockyard.placement;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.HashMap;
import java.util.Map;

/**
 * What every node holds now, counted from the live runtimes recorded for it (a runtime with no node
 * is on the default one), plus the memory of its warm pool members (see {@link WarmMembers}).
 */
@ApplicationScoped
public class NodeLoad {

    @Inject
    RuntimeRepository runtimes;

    @Inject
    BackendNodes nodes;

    @Inject
    WarmMembers warm;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Map<String, NodeUsage> byNode() {
        Map<String, NodeUsage> usage = new HashMap<>();
        for (SandboxRuntime runtime : runtimes.live()) {
            String node = nodes.named(runtime.node());
            usage.merge(node, NodeUsage.NONE.plus(runtime.memoryMb()),
                    (a, b) -> new NodeUsage(a.runtimes() + b.runtimes(), a.memoryMb() + b.memoryMb()));
        }
        warm.memoryByNode().forEach((node, memoryMb) -> usage.merge(node, new NodeUsage(0, memoryMb),
                (a, b) -> new NodeUsage(a.runtimes() + b.runtimes(), a.memoryMb() + b.memoryMb())));
        return usage;
    }
}
