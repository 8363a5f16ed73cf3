package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docker/kubernetes/role.yaml against what the backend really sends: every request the mock API
 * server received while the backend went through a sandbox's whole life is turned into the RBAC
 * (verb, resource[/subresource]) the API server would authorize, and the Role must grant each of
 * them and nothing else. The life begins with the node's health probe ({@code ping}), which placement
 * sends every few seconds.
 */
class KubernetesRoleTest {

    private static final Path ROLE = Path.of("../../docker/kubernetes/role.yaml");
    private static final String ROLE_NAME = "dockyard-backend";
    private static final Pattern NAMESPACED = Pattern.compile(
            "^/api/v1/namespaces/[^/]+/([^/?]+)(?:/([^/?]+)(?:/([^/?]+))?)?(?:\\?(.*))?$");

    private final MockCluster cluster = new MockCluster();

    @AfterEach
    void close() {
        cluster.close();
    }

    /** "verb resource[/subresource]" as RBAC names it. */
    static Set<String> permissions(String request) {
        String method = request.substring(0, request.indexOf(' '));
        String path = request.substring(request.indexOf(' ') + 1);
        Matcher m = NAMESPACED.matcher(path);
        if (!m.matches()) {
            throw new AssertionError("a request outside one namespace's core API: " + request);
        }
        String resource = m.group(1);
        String name = m.group(2);
        String sub = m.group(3);
        String query = m.group(4) == null ? "" : m.group(4);
        if (sub != null) {
            String target = resource + "/" + sub;
            if (Set.of("exec", "attach", "portforward").contains(sub) && method.equals("GET")) {
                // a WebSocket upgrade: authorized as get, and as create by API servers that check
                // the upgrade like the POST it replaces (AuthorizePodWebsocketUpgradeCreatePermission)
                return Set.of("get " + target, "create " + target);
            }
            return Set.of(verb(method, true, query) + " " + target);
        }
        if (method.equals("GET") && name == null && query.contains("fieldSelector=metadata.name")) {
            // fabric8 waits for one object (before an exec) with an informer: it lists, then
            // watches until the condition holds (no watch when the list already shows it)
            return Set.of("list " + resource, "watch " + resource);
        }
        return Set.of(verb(method, name != null, query) + " " + resource);
    }

    private static String verb(String method, boolean named, String query) {
        return switch (method) {
            case "GET" -> named ? "get" : query.contains("watch=true") ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> throw new AssertionError("unexpected method " + method);
        };
    }

    static Set<String> granted(Role role) {
        Set<String> granted = new TreeSet<>();
        for (PolicyRule rule : role.getRules()) {
            assertEquals(List.of(""), rule.getApiGroups(), "only the core API group");
            assertTrue(rule.getResourceNames() == null || rule.getResourceNames().isEmpty());
            for (String resource : rule.getResources()) {
                for (String verb : rule.getVerbs()) {
                    assertFalse(verb.equals("*") || resource.equals("*"), "no wildcards");
                    granted.add(verb + " " + resource);
                }
            }
        }
        return granted;
    }

    /** A sandbox's whole life through the backend; returns the backend's requests. */
    private List<String> exercise() throws InterruptedException {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        List<String> requests = new ArrayList<>();
        backend.ping();
        backend.create(MockCluster.spec("r1", "sk-1"));
        cluster.markRunning("dockyard-r1", "10.0.0.1");
        URI endpoint = backend.start("dockyard-r1", 8000);
        assertEquals(URI.create("http://10.0.0.1:8000"), endpoint);
        backend.endpoint("dockyard-r1", 8000);
        backend.settle("dockyard-r1", 1);
        backend.inspect("dockyard-r1");
        backend.listManaged(MockCluster.CONTROL_PLANE);
        backend.listWorkspaces(MockCluster.CONTROL_PLANE);
        backend.workspaceVolume("dockyard-r1");
        // the mock API server runs no exec: the requests are made all the same, and fail
        assertThrows(BackendException.class, () -> drain(backend.archive("dockyard-r1", "/workspace")));
        assertThrows(BackendException.class, () -> backend.restore("dockyard-r1", "/",
                new ByteArrayInputStream(new byte[1024])));
        backend.pause("dockyard-r1");
        backend.unpause("dockyard-r1");
        backend.stop("dockyard-r1");
        backend.inspect("dockyard-r1");
        Thread kubelet = cluster.runEveryPod();
        try {
            backend.revive("dockyard-r1", "sk-2", "1000", 8000);
        } finally {
            kubelet.interrupt();
        }
        cluster.kubelet.pods().inNamespace(MockCluster.NAMESPACE).withName("dockyard-r1").editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Failed").withContainerStatuses(new ContainerStatusBuilder()
                    .withName("executor").withNewState().withNewTerminated().withExitCode(1).endTerminated()
                    .endState().build()).build());
            return p;
        });
        backend.inspect("dockyard-r1");
        backend.remove("dockyard-r1");
        backend.removeWorkspace("dockyard-kept-ws-9");
        requests.addAll(cluster.requests());
        return requests;
    }

    private static void drain(InputStream in) throws IOException {
        try (in) {
            in.transferTo(OutputStream.nullOutputStream());
        }
    }

    @Test
    void shouldGrantExactlyTheVerbsAndKindsTheBackendCalls() throws IOException, InterruptedException {
        List<String> requests = exercise();
        Set<String> used = new TreeSet<>();
        requests.forEach(r -> used.addAll(permissions(r)));

        Role role;
        try (InputStream in = Files.newInputStream(ROLE)) {
            role = Serialization.unmarshal(in, Role.class);
        }
        assertEquals("Role", role.getKind(), "namespaced, not a ClusterRole");
        assertEquals(ROLE_NAME, role.getMetadata().getName(), "the name docker/kubernetes/rolebinding.yaml binds");
        Set<String> granted = granted(role);

        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(granted);
        assertTrue(missing.isEmpty(), "the backend called what the Role does not grant: " + missing
                + "\nrequests: " + String.join("\n", requests));
        Set<String> unused = new TreeSet<>(granted);
        unused.removeAll(used);
        assertTrue(unused.isEmpty(), "the Role grants what the backend never called: " + unused);
    }

    @Test
    void shouldMapRequestsToRbacLikeTheApiServer() {
        assertEquals(Set.of("list pods"), permissions("GET /api/v1/namespaces/s/pods?labelSelector=a%3Db"));
        assertEquals(Set.of("watch pods"), permissions("GET /api/v1/namespaces/s/pods?fieldSelector=x&watch=true"));
        assertEquals(Set.of("get secrets"), permissions("GET /api/v1/namespaces/s/secrets/k"));
        assertEquals(Set.of("patch secrets"), permissions("PATCH /api/v1/namespaces/s/secrets/k"));
        assertEquals(Set.of("get pods/exec", "create pods/exec"),
                permissions("GET /api/v1/namespaces/s/pods/p/exec?command=tar&stdout=true"));
        assertEquals(Set.of("get pods/log"), permissions("GET /api/v1/namespaces/s/pods/p/log?tailLines=20"));
        assertEquals(Set.of("delete persistentvolumeclaims"),
                permissions("DELETE /api/v1/namespaces/s/persistentvolumeclaims/c"));
    }
}
