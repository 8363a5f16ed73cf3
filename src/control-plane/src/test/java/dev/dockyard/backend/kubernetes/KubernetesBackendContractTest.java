package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** The Kubernetes backend on fabric8's mock API server, its pods run by a kubelet stand-in, keeps the contract. */
class KubernetesBackendContractTest extends AbstractRuntimeBackendContractTest {

    private MockCluster cluster;
    private Thread kubelet;

    @Override
    protected RuntimeBackend node() {
        cluster = new MockCluster();
        kubelet = cluster.runEveryPod();
        return cluster.backend(MockCluster.settings());
    }

    @Override
    protected void closeNode() throws InterruptedException {
        kubelet.interrupt();
        kubelet.join(5_000);
        cluster.close();
    }

    @Override
    protected SandboxSpec spec(String runtimeId, String controlPlane, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, controlPlane, "dockyard-" + runtimeId,
                "dockyard/sandbox:latest", 1, 0, 512, 64, "1000", EXECUTOR_PORT, key, List.of(), null, List.of());
    }

    /** The key reaches the pod's executor as a file from the sandbox's Secret: what that Secret holds. */
    @Override
    protected boolean takesKey(String sandboxName, String key) {
        Secret secret = cluster.client.secrets().inNamespace(MockCluster.NAMESPACE).withName(sandboxName + "-key").get();
        return secret != null && cluster.pod(sandboxName) != null && key.equals(new String(
                Base64.getDecoder().decode(secret.getData().get("session-key")), StandardCharsets.UTF_8));
    }
}
