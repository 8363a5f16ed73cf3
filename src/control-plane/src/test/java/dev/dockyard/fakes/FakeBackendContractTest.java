package dev.dockyard.fakes;

import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import java.util.List;

/** The fake the lifecycle's tests run on keeps the contract of the backends it stands in for. */
class FakeBackendContractTest extends AbstractRuntimeBackendContractTest {

    private FakeBackend fake;

    @Override
    protected RuntimeBackend node() {
        fake = new FakeBackend();
        return fake;
    }

    @Override
    protected SandboxSpec spec(String runtimeId, String controlPlane, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, controlPlane, "dockyard-" + runtimeId,
                "dockyard/sandbox:latest", 1, 0, 512, 256, "1000", EXECUTOR_PORT, key, List.of(), null, List.of());
    }

    @Override
    protected boolean takesKey(String sandboxName, String key) {
        return key.equals(fake.keyOf(sandboxName));
    }
}
