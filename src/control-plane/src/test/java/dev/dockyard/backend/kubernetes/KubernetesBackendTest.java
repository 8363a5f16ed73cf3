package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The objects the Kubernetes backend makes, read back from fabric8's mock API server (CRUD mode). */
class KubernetesBackendTest {

    private static final String KEY = "sk-test-0123456789abcdef";

    private final MockCluster cluster = new MockCluster();

    @AfterEach
    void close() {
        cluster.close();
    }

    private static KubernetesNodeConfig everyOption() {
        return new KubernetesNodeConfig("k8s", Optional.empty(), Optional.empty(), Optional.of(MockCluster.NAMESPACE),
                Optional.of("gvisor"), Map.of("dockyard.dev/sandboxes", "true", "zone", "b"),
                KubernetesNodeConfig.tolerations("t", "sandbox=only:NoSchedule,gpu:NoExecute"),
                List.of("registry-creds"), Optional.of("IfNotPresent"), KubernetesNodeConfig.ExecutorAccess.POD_IP,
                2048, 768, Optional.of("fast-ssd"), 5);
    }

    @Test
    void shouldBuildAHardenedPodWithEveryNodeOption() {
        SandboxSpec spec = MockCluster.spec("r1", KEY);
        cluster.backend(everyOption()).create(spec);

        Pod pod = cluster.pod("dockyard-r1");
        assertNotNull(pod);
        var podSpec = pod.getSpec();
        assertEquals(Boolean.FALSE, podSpec.getAutomountServiceAccountToken());
        assertEquals(Boolean.FALSE, podSpec.getEnableServiceLinks());
        assertEquals("Never", podSpec.getRestartPolicy());
        assertEquals("gvisor", podSpec.getRuntimeClassName());
        assertEquals(Map.of("dockyard.dev/sandboxes", "true", "zone", "b"), podSpec.getNodeSelector());
        assertEquals(List.of("registry-creds"), podSpec.getImagePullSecrets().stream().map(r -> r.getName()).toList());
        List<Toleration> tolerations = podSpec.getTolerations();
        assertEquals(2, tolerations.size());
        assertEquals(List.of("sandbox", "Equal", "only", "NoSchedule"), List.of(tolerations.get(0).getKey(),
                tolerations.get(0).getOperator(), tolerations.get(0).getValue(), tolerations.get(0).getEffect()));
        assertEquals(List.of("gpu", "Exists", "NoExecute"), List.of(tolerations.get(1).getKey(),
                tolerations.get(1).getOperator(), tolerations.get(1).getEffect()));

        PodSecurityContext podSecurity = podSpec.getSecurityContext();
        assertEquals(1000L, podSecurity.getRunAsUser());
        assertEquals(Boolean.TRUE, podSecurity.getRunAsNonRoot());
        assertEquals("RuntimeDefault", podSecurity.getSeccompProfile().getType());

        List<Container> all = Stream.concat(podSpec.getInitContainers().stream(), podSpec.getContainers().stream())
                .toList();
        assertEquals(2, all.size());
        for (Container container : all) {
            SecurityContext security = container.getSecurityContext();
            assertEquals(1000L, security.getRunAsUser(), container.getName());
            assertEquals(Boolean.TRUE, security.getRunAsNonRoot(), container.getName());
            assertEquals(Boolean.FALSE, security.getAllowPrivilegeEscalation(), container.getName());
            assertEquals(List.of("ALL"), security.getCapabilities().getDrop(), container.getName());
            assertEquals("RuntimeDefault", security.getSeccompProfile().getType(), container.getName());
            assertEquals("IfNotPresent", container.getImagePullPolicy(), container.getName());
            assertEquals(spec.image(), container.getImage());
            // no secret in any environment: the executor's holds only how it starts, the key copy's nothing
            List<EnvVar> env = container.getEnv() == null ? List.of() : container.getEnv();
            assertEquals(container.getName().equals(SandboxObjects.EXECUTOR)
                    ? List.of(new EnvVar(ExecutorServer.VARIABLE, "embedded", null)) : List.of(), env, container.getName());
            assertTrue(container.getEnvFrom() == null || container.getEnvFrom().isEmpty(), "no envFrom");
            Map<String, Quantity> limits = container.getResources().getLimits();
            assertEquals(new Quantity("1500m"), limits.get("cpu"));
            assertEquals(new Quantity("2048Mi"), limits.get("memory"));
            assertEquals(new Quantity("2048Mi"), limits.get("ephemeral-storage"));
            assertEquals(Map.of("cpu", new Quantity("1500m"), "memory", new Quantity("2048Mi")),
                    container.getResources().getRequests());
        }
        Container executor = podSpec.getContainers().get(0);
        assertEquals("/ready", executor.getReadinessProbe().getHttpGet().getPath());
        assertEquals(8000, executor.getReadinessProbe().getHttpGet().getPort().getIntVal());
        assertEquals(8000, executor.getPorts().get(0).getContainerPort());
        assertTrue(podSpec.getHostAliases().stream().anyMatch(a -> "0.0.0.0".equals(a.getIp())));

        assertFalse(Serialization.asJson(pod).contains(KEY), "the key is nowhere in the pod");
        assertEquals(spec.labels(), pod.getMetadata().getLabels());
    }

    @Test
    void shouldHandTheKeyAsAFileFromASecretOnlyTheInitContainerMounts() {
        SandboxSpec spec = MockCluster.spec("r2", KEY);
        cluster.backend(MockCluster.settings()).create(spec);

        Secret secret = cluster.client.secrets().inNamespace(MockCluster.NAMESPACE).withName("dockyard-r2-key").get();
        assertEquals(KEY, decode(secret.getData().get("session-key")));
        assertEquals("jupyter", decode(secret.getData().get("plugins")));
        assertEquals(spec.labels(), secret.getMetadata().getLabels());

        Pod pod = cluster.pod("dockyard-r2");
        Volume key = volume(pod, "key");
        assertEquals("dockyard-r2-key", key.getSecret().getSecretName());
        assertEquals(0440, key.getSecret().getDefaultMode());
        assertEquals("Memory", volume(pod, "run").getEmptyDir().getMedium());
        Container copy = pod.getSpec().getInitContainers().get(0);
        assertEquals(List.of("/opt/dockyard/secret", "/opt/dockyard/run"), mounts(copy));
        Container executor = pod.getSpec().getContainers().get(0);
        // the executor reads its key file from the memory-backed copy and deletes it; the Secret is not mounted there
        assertEquals(List.of("/opt/dockyard/run", "/workspace"), mounts(executor));
    }

    @Test
    void shouldClaimAWorkspaceOfTheRequestedSizeOrMountAKeptOne() {
        KubernetesBackend backend = cluster.backend(everyOption());
        backend.create(MockCluster.spec("r3", KEY).withWorkspace(SandboxWorkspace.fresh(300)));
        backend.create(MockCluster.spec("r4", KEY).withWorkspace(SandboxWorkspace.mount("dockyard-kept-ws-1")));
        backend.create(MockCluster.spec("r5", KEY));

        PersistentVolumeClaim claim = cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE)
                .withName("dockyard-r3-ws").get();
        assertEquals(new Quantity("300Mi"), claim.getSpec().getResources().getRequests().get("storage"));
        assertEquals("fast-ssd", claim.getSpec().getStorageClassName());
        assertEquals(List.of("ReadWriteOnce"), claim.getSpec().getAccessModes());
        assertEquals(MockCluster.spec("r3", KEY).labels(), claim.getMetadata().getLabels());
        assertEquals("dockyard-r3-ws", volume(cluster.pod("dockyard-r3"), "workspace").getPersistentVolumeClaim()
                .getClaimName());
        assertEquals(new Quantity("768Mi"), cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE)
                .withName("dockyard-r5-ws").get().getSpec().getResources().getRequests().get("storage"));

        assertNull(cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE)
                .withName("dockyard-r4-ws").get(), "a sandbox mounting a kept workspace claims none of its own");
        assertEquals("dockyard-kept-ws-1", volume(cluster.pod("dockyard-r4"), "workspace").getPersistentVolumeClaim()
                .getClaimName());
        assertEquals("dockyard-kept-ws-1", backend.workspaceVolume("dockyard-r4"));
    }

    @Test
    void shouldRefuseAProgramSandboxAndARootUser() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        SandboxSpec root = new SandboxSpec("r6", "c", MockCluster.CONTROL_PLANE, "dockyard-r6", "img", 1, 0, 512, 64,
                "0", 8000, KEY, List.of(), null, List.of());
        assertThrows(BackendException.class, () -> backend.create(root));
        assertTrue(cluster.client.secrets().inNamespace(MockCluster.NAMESPACE).list().getItems().isEmpty());
    }

    @Test
    void shouldDeletePodSecretAndClaimOnRemove() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r7", KEY));
        backend.create(MockCluster.spec("r8", KEY).withWorkspace(SandboxWorkspace.mount("dockyard-kept-ws-2")));

        backend.remove("dockyard-r7");
        backend.remove("dockyard-r8");
        backend.remove("dockyard-r8");

        assertTrue(cluster.client.pods().inNamespace(MockCluster.NAMESPACE).list().getItems().isEmpty());
        assertTrue(cluster.client.secrets().inNamespace(MockCluster.NAMESPACE).list().getItems().isEmpty());
        assertTrue(cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).list().getItems()
                .isEmpty());
        assertEquals(SandboxState.Phase.MISSING, backend.inspect("dockyard-r7").phase());
    }

    @Test
    void shouldHibernateByDeletingThePodAndMountTheSameClaimAtTheRevival() {
        // the phases, the listing and the key a revival hands: AbstractRuntimeBackendContractTest
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        Thread kubelet = cluster.runEveryPod();
        try {
            backend.create(MockCluster.spec("r9", KEY));
            assertEquals(URI.create("http://10.1.2.3:8000"), backend.start("dockyard-r9", 8000));
            assertFalse(backend.capabilities().freezes());

            backend.stop("dockyard-r9");

            assertNull(cluster.pod("dockyard-r9"));
            assertNotNull(cluster.client.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE)
                    .withName("dockyard-r9-ws").get(), "the workspace claim outlives the pod");

            assertEquals(URI.create("http://10.1.2.3:8000"), backend.revive("dockyard-r9", "sk-new-key", "1000", 8000));
            assertEquals("dockyard-r9-ws", volume(cluster.pod("dockyard-r9"), "workspace").getPersistentVolumeClaim()
                    .getClaimName());
        } finally {
            kubelet.interrupt();
        }
    }

    @Test
    void shouldStartTheExecutorOnItsServerAndKeepItThroughAHibernation() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        Thread kubelet = cluster.runEveryPod();
        try {
            backend.create(MockCluster.spec("r10", KEY).withExecutorServer(ExecutorServer.LIBERTY));
            backend.start("dockyard-r10", 8000);
            assertEquals(List.of(new EnvVar("DOCKYARD_EXECUTOR_SERVER", "liberty", null)),
                    cluster.pod("dockyard-r10").getSpec().getContainers().get(0).getEnv());
            List<EnvVar> keyCopy = cluster.pod("dockyard-r10").getSpec().getInitContainers().get(0).getEnv();
            assertTrue(keyCopy == null || keyCopy.isEmpty(), "the key copy starts no executor");

            backend.stop("dockyard-r10");
            backend.revive("dockyard-r10", "sk-new-key", "1000", 8000);

            // the pod is made again from its template: the same server
            assertEquals(List.of(new EnvVar("DOCKYARD_EXECUTOR_SERVER", "liberty", null)),
                    cluster.pod("dockyard-r10").getSpec().getContainers().get(0).getEnv());
        } finally {
            kubelet.interrupt();
        }
    }

    @Test
    void shouldHonourTheClustersPortMappingAnnotation() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r10", KEY));
        cluster.client.pods().inNamespace(MockCluster.NAMESPACE).withName("dockyard-r10").edit(p -> {
            p.getMetadata().getAnnotations().put(KubernetesBackend.EXECUTOR_PORT, "41234");
            return p;
        });
        cluster.markRunning("dockyard-r10", "127.0.0.1");

        assertEquals(URI.create("http://127.0.0.1:41234"), backend.start("dockyard-r10", 8000));
    }

    @Test
    void shouldNameAnImagePullFailureAndAnOomKill() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r11", KEY));
        backend.create(MockCluster.spec("r12", KEY));
        cluster.client.pods().inNamespace(MockCluster.NAMESPACE).withName("dockyard-r11").editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Pending").withInitContainerStatuses(
                    new ContainerStatusBuilder().withName("session-key").withNewState().withNewWaiting()
                            .withReason("ErrImagePull").withMessage("pull access denied for registry.example")
                            .endWaiting().endState().build()).build());
            return p;
        });
        cluster.client.pods().inNamespace(MockCluster.NAMESPACE).withName("dockyard-r12").editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Failed").withContainerStatuses(
                    new ContainerStatusBuilder().withName("executor").withNewState().withNewTerminated()
                            .withReason("OOMKilled").withExitCode(137).endTerminated().endState().build()).build());
            return p;
        });

        BackendException pull = assertThrows(BackendException.class, () -> backend.start("dockyard-r11", 8000));
        assertTrue(pull.getMessage().contains("ErrImagePull") && pull.getMessage().contains("pull access denied"),
                pull.getMessage());
        SandboxState oom = backend.inspect("dockyard-r12");
        assertEquals(SandboxState.Phase.EXITED, oom.phase());
        assertEquals(137, oom.exitCode());
        assertTrue(oom.logTail().startsWith("OOMKilled"), oom.logTail());
    }

    @Test
    void shouldListOnlyThisControlPlanesWorkspacesByLabel() {
        // its sandboxes by label: AbstractRuntimeBackendContractTest
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r13", KEY));
        SandboxSpec other = MockCluster.spec("r14", KEY);
        backend.create(new SandboxSpec(other.runtimeId(), other.conversationId(), "another-cp", other.name(),
                other.image(), 1, 0, 512, 64, "1000", 8000, KEY, List.of(), null, List.of())
                .withWorkspace(SandboxWorkspace.fresh(0)));

        assertEquals(List.of("dockyard-r13-ws"), backend.listWorkspaces(MockCluster.CONTROL_PLANE).stream()
                .map(w -> w.name()).toList());
    }

    @Test
    void shouldRaiseWhenTheListFails() throws InterruptedException {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r15", KEY));
        cluster.requests();
        backend.listManaged(MockCluster.CONTROL_PLANE);
        String podList = cluster.requests().stream().filter(r -> r.startsWith("GET ") && r.contains("/pods?"))
                .findFirst().orElseThrow().substring(4);
        cluster.server.expect().get().withPath(podList).andReturn(500, "etcd is down").always();

        BackendException failed = assertThrows(BackendException.class,
                () -> backend.listManaged(MockCluster.CONTROL_PLANE));
        assertTrue(failed.getMessage().contains(MockCluster.NAMESPACE), failed.getMessage());
    }

    @Test
    void shouldPingByListingOneManagedPodInItsNamespace() throws InterruptedException {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        cluster.requests();

        backend.ping();

        List<String> requests = cluster.requests();
        assertEquals(1, requests.size(), requests.toString());
        String ping = requests.get(0);
        assertTrue(ping.startsWith("GET /api/v1/namespaces/" + MockCluster.NAMESPACE + "/pods?"), ping);
        assertTrue(ping.contains("limit=1"), ping);
        assertTrue(ping.contains("labelSelector=" + Labels.MANAGED.replace("/", "%2F") + "%3Dtrue"), ping);
    }

    @Test
    void shouldFailThePingWhenTheApiServerFails() throws InterruptedException {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.ping();
        String ping = cluster.requests().get(0).substring(4);
        cluster.server.expect().get().withPath(ping).andReturn(500, "etcd is down").always();

        BackendException failed = assertThrows(BackendException.class, backend::ping);
        assertTrue(failed.getMessage().contains(MockCluster.NAMESPACE), failed.getMessage());
    }

    private static Volume volume(Pod pod, String name) {
        return pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> mounts(Container container) {
        return container.getVolumeMounts().stream().map(VolumeMount::getMountPath).toList();
    }

    @Test
    void shouldNameWhatTheClientsGenericErrorWraps() {
        assertEquals("An error has occurred. (IOException: could not send)", KubernetesBackend.describe(
                new KubernetesClientException("An error has occurred.", new IOException("could not send"))));
        assertEquals("pods \"x\" not found", KubernetesBackend.describe(new KubernetesClientException("pods \"x\" not found")));
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }
}
