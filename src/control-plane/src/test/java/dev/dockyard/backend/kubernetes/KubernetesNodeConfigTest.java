package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.NodeType;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** dockyard.node.<name>.* as MP Config gives it. */
class KubernetesNodeConfigTest {

    /** A Config of these values only (what the reader asks: getOptionalValue of String or Integer). */
    private static Config config(Map<String, String> values) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getOptionalValue")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Optional<String> value = Optional.ofNullable(values.get((String) args[0]));
                    return args[1] == Integer.class ? value.map(Integer::valueOf) : value;
                });
    }

    @Test
    void shouldReadEveryKeyOfAKubernetesNode() {
        Config config = config(Map.ofEntries(
                Map.entry("dockyard.node.k8s.type", "kubernetes"),
                Map.entry("dockyard.node.k8s.kubeconfig", "/etc/kube/config"),
                Map.entry("dockyard.node.k8s.context", "prod"),
                Map.entry("dockyard.node.k8s.namespace", "sandboxes"),
                Map.entry("dockyard.node.k8s.runtime-class", "kata"),
                Map.entry("dockyard.node.k8s.node-selector", "pool=sandboxes, zone=b"),
                Map.entry("dockyard.node.k8s.tolerations", "dedicated=sandbox:NoSchedule"),
                Map.entry("dockyard.node.k8s.image-pull-secrets", "a,b"),
                Map.entry("dockyard.node.k8s.image-pull-policy", "Always"),
                Map.entry("dockyard.node.k8s.executor-access", "pod-ip"),
                Map.entry("dockyard.node.k8s.ephemeral-storage-mb", "4096"),
                Map.entry("dockyard.node.k8s.storage-class", "ssd"),
                Map.entry("dockyard.node.k8s.start-timeout", "60")));

        assertEquals(NodeType.KUBERNETES, NodeType.of(config, "k8s"));
        assertEquals(NodeType.DOCKER, NodeType.of(config, "local"));
        KubernetesNodeConfig node = KubernetesNodeConfig.read(config, "k8s", 2048);
        assertEquals(Optional.of("/etc/kube/config"), node.kubeconfig());
        assertEquals(Optional.of("prod"), node.context());
        assertEquals(Optional.of("sandboxes"), node.namespace());
        assertEquals(Optional.of("kata"), node.runtimeClass());
        assertEquals(Map.of("pool", "sandboxes", "zone", "b"), node.nodeSelector());
        assertEquals("dedicated", node.tolerations().get(0).getKey());
        assertEquals("sandbox", node.tolerations().get(0).getValue());
        assertEquals("NoSchedule", node.tolerations().get(0).getEffect());
        assertEquals(List.of("a", "b"), node.imagePullSecrets());
        assertEquals(Optional.of("Always"), node.imagePullPolicy());
        assertEquals(KubernetesNodeConfig.ExecutorAccess.POD_IP, node.executorAccess());
        assertEquals(4096, node.ephemeralStorageMb());
        assertEquals(2048, node.workspaceMb());
        assertEquals(Optional.of("ssd"), node.storageClass());
        assertEquals(60, node.startTimeoutSeconds());
    }

    @Test
    void shouldDefaultToTheApiProxyOutsideAClusterWhenAKubeconfigIsNamed() {
        KubernetesNodeConfig node = KubernetesNodeConfig.read(config(Map.of("dockyard.node.k.kubeconfig", "/x")),
                "k", 0);
        assertEquals(KubernetesNodeConfig.ExecutorAccess.API_PROXY, node.executorAccess());
        assertEquals(1024, node.workspaceMb());
        assertEquals(300, node.startTimeoutSeconds());
    }

    @Test
    void shouldRefuseValuesItCannotUse() {
        for (Map<String, String> bad : List.of(Map.of("dockyard.node.k.type", "nomad"),
                Map.of("dockyard.node.k.executor-access", "node-port"),
                Map.of("dockyard.node.k.image-pull-policy", "Sometimes"),
                Map.of("dockyard.node.k.node-selector", "novalue"),
                Map.of("dockyard.node.k.tolerations", "noeffect"),
                Map.of("dockyard.node.k.ephemeral-storage-mb", "-1"))) {
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> {
                NodeType.of(config(bad), "k");
                KubernetesNodeConfig.read(config(bad), "k", 0);
            }, bad.toString());
            assertTrue(refused.getMessage().startsWith(bad.keySet().iterator().next()), refused.getMessage());
        }
    }
}
