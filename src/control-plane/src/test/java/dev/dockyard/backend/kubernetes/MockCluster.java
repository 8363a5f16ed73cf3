package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * fabric8's Kubernetes mock server in CRUD mode on 127.0.0.1, a client on the OkHttp client (as
 * in production), and the few things a kubelet would do that the tests need: mark a pod running
 * or failed. Nothing here runs a container.
 */
public final class MockCluster implements AutoCloseable {

    public static final String NAMESPACE = "sandboxes";
    public static final String CONTROL_PLANE = "test-cp";
    private static final String KUBELET = "dockyard-test-kubelet";

    public final KubernetesMockServer server;
    public final KubernetesClient client;
    /** The tests' own client (what a kubelet or a person does): its requests are not the backend's. */
    public final KubernetesClient kubelet;
    /** What answers a pod's exec subresource (a kubelet's part), when set: otherwise the mock's 404. */
    public volatile Function<RecordedRequest, WebSocketListener> exec;

    public MockCluster() {
        // CRUD mode: the objects posted are kept and served back; expectations still go first
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher dispatcher = new KubernetesMixedDispatcher(responses) {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                Function<RecordedRequest, WebSocketListener> kubeletExec = exec;
                if (kubeletExec != null && request.getPath().matches("^/api/v1/namespaces/[^/]+/pods/[^/]+/exec\\?.*")) {
                    return new MockResponse().withWebSocketUpgrade(kubeletExec.apply(request));
                }
                return super.dispatch(request);
            }
        };
        server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), responses,
                dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        // a failing request fails at once (production retries 5xx with back-off)
        client = server.createClient(b -> b.withHttpClientFactory(new OkHttpClientFactory())
                .editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        kubelet = server.createClient(b -> b.withHttpClientFactory(new OkHttpClientFactory())
                .editOrNewConfig().withUserAgent(KUBELET).endConfig());
    }

    public static KubernetesNodeConfig settings() {
        return new KubernetesNodeConfig("k8s", Optional.empty(), Optional.empty(), Optional.of(NAMESPACE),
                Optional.empty(), Map.of(), List.of(), List.of(), Optional.empty(),
                KubernetesNodeConfig.ExecutorAccess.POD_IP, 0, 512, Optional.empty(), 5);
    }

    public KubernetesBackend backend(KubernetesNodeConfig settings) {
        return new KubernetesBackend(client, settings, Clock.systemUTC());
    }

    public static SandboxSpec spec(String runtimeId, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, CONTROL_PLANE, "dockyard-" + runtimeId,
                "registry.example/dockyard/sandbox:1", 1.5, 4, 2048, 512, "1000", 8000, key, List.of("jupyter"),
                null, List.of()).withWorkspace(SandboxWorkspace.fresh(0));
    }

    public Pod pod(String name) {
        return client.pods().inNamespace(NAMESPACE).withName(name).get();
    }

    /** What a kubelet reports once the pod's containers run. */
    public void markRunning(String name, String ip) {
        kubelet.pods().inNamespace(NAMESPACE).withName(name).editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP(ip)
                    .withContainerStatuses(new ContainerStatusBuilder().withName("executor").withReady(true)
                            .withNewState().withNewRunning().endRunning().endState().build())
                    .build());
            return p;
        });
    }

    /**
     * Marks every pod without a status running, in the background, until the thread is interrupted
     * (or for two minutes at most: no test runs longer).
     */
    public Thread runEveryPod() {
        Thread loop = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
                try {
                    for (Pod pod : kubelet.pods().inNamespace(NAMESPACE).list().getItems()) {
                        if (pod.getStatus() == null || pod.getStatus().getPhase() == null) {
                            markRunning(pod.getMetadata().getName(), "10.1.2.3");
                        }
                    }
                } catch (RuntimeException e) {
                    // a pod deleted or changed between the list and the edit: the next round sees it anew
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        loop.setDaemon(true);
        loop.start();
        return loop;
    }

    /** Every request of the backend's client since the last call, as "METHOD path". */
    public List<String> requests() throws InterruptedException {
        List<String> requests = new ArrayList<>();
        RecordedRequest request;
        while ((request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            if (KUBELET.equals(request.getHeader("User-Agent"))) {
                continue;
            }
            requests.add(request.getMethod() + " " + request.getPath());
        }
        return requests;
    }

    @Override
    public void close() {
        client.close();
        kubelet.close();
        try {
            server.destroy();
        } catch (IllegalStateException e) {
            // the mock server waits a bounded time for its connections to close (an exec stream
            // the test broke off on purpose may still be draining on a busy machine); what the test
            // asserted is settled by then, and its port is not reused
            if (!(e.getCause() instanceof TimeoutException)) {
                throw e;
            }
        }
    }
}
