package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.KubeletExec;
import it.dev.dockyard.support.KubeletStandIn;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Kubernetes node end to end, through the Kubernetes API: fabric8's mock API server (CRUD mode,
 * in this JVM on 127.0.0.1) is the cluster, and {@link KubeletStandIn} its kubelet, running each
 * pod as real containers on the local Docker engine. The shared control plane has node "k8s"
 * (explicit placement, {@link ControlPlaneSettings#shared()}) with a kubeconfig pointing at the
 * mock's fixed port, beside the Docker nodes "local" and "node2": unhealthy until this suite
 * starts the mock, which is why each request here names the node.
 * No real cluster runs here: scheduling, kube-proxy and the cluster's own network are not tested.
 */
class KubernetesNodeIT {

    private static final String NAMESPACE = ControlPlaneSettings.KUBERNETES_NAMESPACE;
    private static final Pattern EXEC = Pattern.compile("^/api/v1/namespaces/[^/]+/pods/([^/]+)/exec\\?(.*)$");

    private static final DockyardApi API = new DockyardApi();
    private static KubernetesMockServer server;
    private static KubernetesClient cluster;
    private static KubeletStandIn kubelet;

    @BeforeAll
    static void startTheCluster() throws Exception {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher dispatcher = new KubernetesMixedDispatcher(responses) {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                Matcher exec = EXEC.matcher(request.getPath());
                if (exec.matches()) {
                    // the pod's exec subresource is the kubelet's: the stand-in runs the command
                    return kubelet.containerOf(exec.group(1))
                            .map(c -> new MockResponse().withWebSocketUpgrade(KubeletExec.of(c, exec.group(2))))
                            .orElse(new MockResponse().setResponseCode(404));
                }
                return super.dispatch(request);
            }
        };
        server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), responses,
                dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), ControlPlaneSettings.KUBERNETES_PORT);
        cluster = server.createClient(b -> b.withHttpClientFactory(new JdkHttpClientFactory()));
        kubelet = new KubeletStandIn(cluster, NAMESPACE);
        kubelet.start();
        API.awaitHealthyNode("k8s", Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopTheCluster() {
        if (kubelet != null) {
            kubelet.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (server != null) {
            server.destroy();
        }
    }

    private static String run(String runtimeId, String command) {
        JsonObject observation = API.act(runtimeId, DockyardApi.run(command));
        assertEquals(0, observation.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"),
                observation.toString());
        return observation.getString("content").strip();
    }

    private static Pod pod(String runtimeId) {
        return cluster.pods().inNamespace(NAMESPACE).withName("dockyard-" + runtimeId).get();
    }

    /** The objects, container and claim volumes of a runtime still there. */
    private static List<String> leftoversOf(String runtimeId, String container) {
        List<String> left = new ArrayList<>();
        if (pod(runtimeId) != null) {
            left.add("pod");
        }
        if (cluster.secrets().inNamespace(NAMESPACE).withName("dockyard-" + runtimeId + "-key").get() != null) {
            left.add("secret");
        }
        if (cluster.persistentVolumeClaims().inNamespace(NAMESPACE).withName("dockyard-" + runtimeId + "-ws")
                .get() != null) {
            left.add("claim");
        }
        // one call: the container may go between two
        DockerCli.Result inspected = DockerCli.run("inspect", "--format", "{{.State.Status}}", container);
        if (inspected.exitCode() == 0) {
            left.add("container " + container + " (" + inspected.output().strip() + ")");
        }
        DockerCli.volumesLabelled(KubeletStandIn.LABEL).stream().filter(v -> v.contains(runtimeId))
                .forEach(v -> left.add("volume " + v));
        return left;
    }

    private static boolean noObjectsOf(String runtimeId) {
        return pod(runtimeId) == null
                && cluster.secrets().inNamespace(NAMESPACE).withName("dockyard-" + runtimeId + "-key").get() == null
                && cluster.persistentVolumeClaims().inNamespace(NAMESPACE).withName("dockyard-" + runtimeId + "-ws")
                .get() == null;
    }

    @Test
    void shouldRunARuntimeAsAPodThroughHibernationUntilDeleteLeavesNothing() {
        String conversation = "it-k8s-" + UUID.randomUUID();
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("node", "k8s").add("sandbox", Json.createObjectBuilder()).build(), 180);
        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().getString("id");
        try {
            assertEquals("READY", answer.json().getString("status"), answer.body());
            assertEquals("k8s", answer.json().getString("node"));
            // GET /api/v1/nodes: a kubernetes node, healthy (its probe lists pods through the mock), holding it
            JsonObject node = API.get("nodes").json().getJsonArray("nodes").getValuesAs(JsonObject.class).stream()
                    .filter(n -> n.getString("name").equals("k8s")).findFirst().orElseThrow();
            assertEquals("kubernetes", node.getString("type"), node.toString());
            assertTrue(node.getBoolean("healthy"), node.toString());
            assertTrue(node.getInt("runtimes") >= 1, node.toString());
            System.out.println("Kubernetes node, provisioned: " + answer.json().getString("statusMessage"));

            // the pod as the backend made it, running as a real container
            Pod pod = pod(id);
            assertNotNull(pod);
            assertEquals(Boolean.FALSE, pod.getSpec().getAutomountServiceAccountToken());
            assertEquals(conversation, pod.getMetadata().getLabels().get("dev.dockyard.conversation-id"));
            String container = kubelet.containerOf(pod.getMetadata().getName()).orElseThrow();
            assertEquals("true", DockerCli.inspect(container, "{{.State.Running}}"));
            assertFalse(DockerCli.inspect(container, "{{json .Config.Env}}").contains(
                    cluster.secrets().inNamespace(NAMESPACE).withName("dockyard-" + id + "-key").get().getData()
                            .get("session-key")), "no key in the container's environment");

            assertEquals("hello from a pod", run(id, "echo hello from a pod"));
            run(id, "echo kept-across-hibernation > /workspace/note.txt");
            assertEquals("kept-across-hibernation", run(id, "cat /workspace/note.txt"));
            // the executor consumed its key file: the agent's shell finds none
            assertEquals("gone", run(id, "test -e /opt/dockyard/run/session-key && echo present || echo gone"));

            // no freezer on Kubernetes: a pause hibernates (pod deleted, claim and Secret kept)
            DockyardApi.Answer paused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
            assertEquals(200, paused.status(), paused.body());
            assertEquals("HIBERNATED", paused.json().getString("status"), paused.body());
            assertNull(pod(id));
            assertNotNull(cluster.persistentVolumeClaims().inNamespace(NAMESPACE).withName("dockyard-" + id + "-ws")
                    .get());
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> DockerCli.run("inspect", container).exitCode() != 0);

            DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
            assertEquals(200, resumed.status(), resumed.body());
            assertEquals("READY", resumed.json().getString("status"), resumed.body());
            System.out.println("Kubernetes node, hibernated: " + paused.json().getString("statusMessage")
                    + "; resumed: " + resumed.json().getString("statusMessage"));
            assertEquals("kept-across-hibernation", run(id, "cat /workspace/note.txt"));
            String second = kubelet.containerOf("dockyard-" + id).orElseThrow();
            assertFalse(second.equals(container), "a new pod, a new container");

            assertEquals(204, API.delete("runtimes/" + id).status());
            // what is left is named if anything still is after the wait
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> leftoversOf(id, second), Matchers.empty());
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldNameAnImagePullFailureAndAnOomKillInTheError() {
        DockyardApi.Answer pull = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-k8s-pull-" + UUID.randomUUID())
                .add("node", "k8s").add("sandbox", Json.createObjectBuilder().add("image", "registry.invalid/dockyard/nope:1"))
                .build(), 180);
        String pullId = pull.json().getString("id");
        String oomConversation = "it-k8s-oom-" + UUID.randomUUID();
        kubelet.failWith(oomConversation, "OOMKilled");
        DockyardApi.Answer oom = API.provision(Json.createObjectBuilder().add("conversationId", oomConversation)
                .add("node", "k8s").add("sandbox", Json.createObjectBuilder()).build(), 180);
        String oomId = oom.json().getString("id");
        try {
            assertEquals("ERROR", pull.json().getString("status"), pull.body());
            assertTrue(pull.json().getString("statusMessage").contains("ErrImagePull"), pull.body());
            assertEquals("ERROR", oom.json().getString("status"), oom.body());
            assertTrue(oom.json().getString("statusMessage").contains("OOMKilled"), oom.body());
            // a failed runtime's objects go with it
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> noObjectsOf(pullId) && noObjectsOf(oomId));
        } finally {
            API.delete("runtimes/" + pullId);
            API.delete("runtimes/" + oomId);
        }
    }

    @Test
    void shouldMigrateBetweenTheDockerAndKubernetesNodesKeepingTheWorkspace() {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-k8s-migrate-" + UUID.randomUUID())
                .add("node", "k8s").add("sandbox", Json.createObjectBuilder()).build(), 180);
        assertEquals(201, answer.status(), answer.body());
        String onKubernetes = answer.json().getString("id");
        String onDocker = null;
        String back = null;
        try {
            run(onKubernetes, "mkdir -p /workspace/src && echo 'int x;' > /workspace/src/a.c"
                    + " && head -c 3000000 /dev/urandom > /workspace/big.bin");
            String digest = run(onKubernetes, "cd /workspace && sha256sum big.bin src/a.c");

            DockyardApi.Answer toDocker = API.migrate(onKubernetes, "{\"node\": \"local\"}", null, 180);
            assertEquals(201, toDocker.status(), toDocker.body());
            onDocker = toDocker.json().getString("id");
            assertEquals("local", toDocker.json().getString("node"));
            assertEquals(digest, run(onDocker, "cd /workspace && sha256sum big.bin src/a.c"));
            String id = onKubernetes;
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> noObjectsOf(id));
            run(onDocker, "echo written-on-docker > /workspace/docker.txt");

            // Docker -> Kubernetes: the workspace streams into the new pod through its exec subresource
            DockyardApi.Answer toKubernetes = API.migrate(onDocker, "{\"node\": \"k8s\"}", null, 180);
            assertEquals(201, toKubernetes.status(), toKubernetes.body());
            back = toKubernetes.json().getString("id");
            assertEquals("k8s", toKubernetes.json().getString("node"));
            assertTrue(toKubernetes.json().getString("statusMessage").contains("migrated from node 'local'"),
                    toKubernetes.body());
            assertEquals(digest, run(back, "cd /workspace && sha256sum big.bin src/a.c"));
            System.out.println("Kubernetes node, migrated: " + toDocker.json().getString("statusMessage") + " | back: "
                    + toKubernetes.json().getString("statusMessage"));
            assertEquals("written-on-docker", run(back, "cat /workspace/docker.txt"));
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + onDocker));
        } finally {
            API.delete("runtimes/" + onKubernetes);
            if (onDocker != null) {
                API.delete("runtimes/" + onDocker);
            }
            if (back != null) {
                API.delete("runtimes/" + back);
            }
        }
    }
}
