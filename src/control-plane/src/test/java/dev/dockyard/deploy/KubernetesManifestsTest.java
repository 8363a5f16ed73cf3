package dev.dockyard.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docker/kubernetes/ without kubectl or a cluster (none can run here): every manifest parses with
 * fabric8 into the kind it should be, and the objects agree with each other, with the control plane's
 * image (docker/control-plane/Dockerfile: its user, port, writable paths, configuration directories)
 * and with its server (server.xml's HTTP port, MicroProfile Health's endpoints). role.yaml belongs to
 * the Kubernetes backend, which tests what it grants; here it need only be a Role of the bound name.
 */
class KubernetesManifestsTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();
    private static final Path MANIFESTS = ROOT.resolve("docker/kubernetes");
    private static final String ROLE_FILE = "role.yaml";
    private static final String PLACEHOLDER = "REPLACE_ME";
    /** The Role role.yaml defines, which rolebinding.yaml binds. */
    private static final String ROLE = "dockyard-backend";

    @Test
    void shouldParseEveryManifestIntoItsKind() throws IOException {
        assertEquals(Namespace.class, load("namespace.yaml").getClass());
        assertEquals(ServiceAccount.class, load("serviceaccount.yaml").getClass());
        assertEquals(RoleBinding.class, load("rolebinding.yaml").getClass());
        assertEquals(ConfigMap.class, load("configmap.yaml").getClass());
        assertEquals(Secret.class, load("secret.yaml").getClass());
        assertEquals(PersistentVolumeClaim.class, load("pvc.yaml").getClass());
        assertEquals(Deployment.class, load("deployment.yaml").getClass());
        assertEquals(Service.class, load("service.yaml").getClass());
        if (Files.exists(MANIFESTS.resolve(ROLE_FILE))) {
            Role role = load(ROLE_FILE);
            assertEquals(binding().getRoleRef().getName(), role.getMetadata().getName());
        }
    }

    @Test
    void shouldListEveryManifestInTheKustomizationAndPutThemInOneNamespace() throws IOException {
        Map<?, ?> kustomization = yaml("kustomization.yaml");
        List<String> resources = new ArrayList<>();
        ((List<?>) kustomization.get("resources")).forEach(r -> resources.add(r.toString()));
        Set<String> files = new TreeSet<>();
        try (Stream<Path> list = Files.list(MANIFESTS)) {
            list.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml")).forEach(files::add);
        }
        Set<String> expected = new TreeSet<>(files);
        expected.add(ROLE_FILE); // the backend's Role: listed before it exists on every branch
        assertEquals(expected, new TreeSet<>(resources));

        String namespace = load("namespace.yaml").getMetadata().getName();
        assertEquals(namespace, kustomization.get("namespace"));
        for (String file : files) {
            HasMetadata object = load(file);
            String own = object.getMetadata().getNamespace();
            // the backend's Role may leave its namespace to the kustomization; ours name it, for kubectl apply -f
            if (!(object instanceof Namespace) && !(file.equals(ROLE_FILE) && own == null)) {
                assertEquals(namespace, own, file);
            }
        }
    }

    @Test
    void shouldReferenceTheServiceAccountConfigMapSecretAndClaimThatExist() throws IOException {
        PodSpec pod = deployment().getSpec().getTemplate().getSpec();
        assertEquals(load("serviceaccount.yaml").getMetadata().getName(), pod.getServiceAccountName());
        assertTrue(pod.getAutomountServiceAccountToken(), "the backend's client needs the account's token");
        assertEquals(load("configmap.yaml").getMetadata().getName(), volume(pod, "config").getConfigMap().getName());
        assertEquals(load("secret.yaml").getMetadata().getName(), volume(pod, "secrets").getSecret().getSecretName());
        assertEquals(load("pvc.yaml").getMetadata().getName(),
                volume(pod, "data").getPersistentVolumeClaim().getClaimName());
        // every volume a container mounts is declared, and nothing else is
        Set<String> declared = new TreeSet<>(pod.getVolumes().stream().map(Volume::getName).toList());
        Set<String> mounted = new TreeSet<>(container().getVolumeMounts().stream().map(VolumeMount::getName).toList());
        assertEquals(declared, mounted);
    }

    @Test
    void shouldRunTheControlPlaneImageOfThisVersionOnTheServersPort() throws IOException {
        Container container = container();
        assertEquals("dockyard/control-plane:" + version(), container.getImage());
        ContainerPort http = container.getPorts().stream().filter(p -> "http".equals(p.getName())).findFirst().orElseThrow();
        String dockerfile = dockerfile();
        assertEquals(serverHttpPort(), http.getContainerPort());
        assertEquals(Integer.toString(http.getContainerPort()), env(dockerfile, "HTTP_PORT"));
        assertTrue(dockerfile.contains("EXPOSE " + http.getContainerPort()), "the image exposes the port");
        // the image must listen beyond its own loopback for the Service to reach it
        assertEquals("0.0.0.0", env(dockerfile, "HTTP_HOST"));
    }

    @Test
    void shouldServeRuntimesServiceUrlsOnAPortOfTheirOwnThatTheServiceAndTheConfigMapName() throws IOException {
        Container container = container();
        ContainerPort services = container.getPorts().stream().filter(p -> "services".equals(p.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no container port named services"));
        String dockerfile = dockerfile();
        Matcher m = Pattern.compile("<variable name=\"dockyard.proxy.port\" defaultValue=\"(\\d+)\"/>")
                .matcher(Files.readString(ROOT.resolve("server.xml")));
        assertTrue(m.find(), "server.xml names no default dockyard.proxy.port");
        assertEquals(Integer.parseInt(m.group(1)), services.getContainerPort());
        assertEquals(Integer.toString(services.getContainerPort()), env(dockerfile, "DOCKYARD_PROXY_PORT"));
        assertTrue(dockerfile.matches("(?s).*EXPOSE [0-9 ]*\\b" + services.getContainerPort() + "\\b.*"),
                "the image exposes the services' port");
        Service service = load("service.yaml");
        ServicePort exposed = service.getSpec().getPorts().stream().filter(p -> "services".equals(p.getName()))
                .findFirst().orElseThrow(() -> new AssertionError("the Service has no services port"));
        assertEquals("services", exposed.getTargetPort().getStrVal());
        Map<String, String> data = ((ConfigMap) load("configmap.yaml")).getData();
        assertFalse(data.containsKey("dockyard.public-url"), "the old name pointed at the API's port");
        assertTrue(data.get("dockyard.proxy.public-url").endsWith(":" + exposed.getPort()),
                "service URLs point at the Service's services port: " + data.get("dockyard.proxy.public-url"));
    }

    @Test
    void shouldProbeMicroProfileHealthOnTheNamedHttpPort() throws IOException {
        Container container = container();
        assertProbe(container.getStartupProbe(), "/health/started");
        assertProbe(container.getLivenessProbe(), "/health/live");
        assertProbe(container.getReadinessProbe(), "/health/ready");
        String server = Files.readString(ROOT.resolve("server.xml"));
        assertTrue(server.contains("<feature>mpHealth-"), "the probes need MicroProfile Health in server.xml");
    }

    @Test
    void shouldRouteTheServiceToThePodsHttpPort() throws IOException {
        Service service = load("service.yaml");
        Deployment deployment = deployment();
        Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        service.getSpec().getSelector().forEach((k, v) -> assertEquals(v, podLabels.get(k), "selector " + k));
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(), service.getSpec().getSelector());
        ServicePort port = service.getSpec().getPorts().get(0);
        Set<String> containerPorts = new TreeSet<>();
        container().getPorts().forEach(p -> {
            containerPorts.add(p.getName());
            containerPorts.add(Integer.toString(p.getContainerPort()));
        });
        String target = port.getTargetPort().getStrVal() != null ? port.getTargetPort().getStrVal()
                : Integer.toString(port.getTargetPort().getIntVal());
        assertTrue(containerPorts.contains(target), "targetPort " + target + " is not a container port");
    }

    @Test
    void shouldRunAsTheImagesNonRootUserOnAReadOnlyRootWithItsWritablePathsMounted() throws IOException {
        PodSpec pod = deployment().getSpec().getTemplate().getSpec();
        Container container = container();
        String dockerfile = dockerfile();
        Matcher user = Pattern.compile("(?m)^USER (\\d+)\\s*$").matcher(dockerfile);
        String imageUser = null;
        while (user.find()) {
            imageUser = user.group(1); // the last USER is the one the server runs as
        }
        assertEquals(imageUser, pod.getSecurityContext().getRunAsUser().toString());
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        assertTrue(container.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(container.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), container.getSecurityContext().getCapabilities().getDrop());
        assertNotNull(container.getResources().getLimits().get("memory"), "a memory limit");
        assertNotNull(container.getResources().getRequests().get("cpu"), "a CPU request");

        // what the server writes: Liberty's output, the Derby database's directory, /tmp
        String databaseDir = Path.of(env(dockerfile, "DOCKYARD_DB_DIR")).getParent().toString();
        for (String path : List.of(env(dockerfile, "WLP_OUTPUT_DIR"), databaseDir, "/tmp")) {
            VolumeMount mount = mountAt(container, path);
            assertFalse(Boolean.TRUE.equals(mount.getReadOnly()), path + " must be writable");
        }
        // MP Config from the directories the image reads (Liberty's VARIABLE_SOURCE_DIRS)
        List<String> sources = List.of(env(dockerfile, "VARIABLE_SOURCE_DIRS").split(":"));
        assertTrue(sources.contains(mountAt(container, "/etc/dockyard/config").getMountPath()));
        assertTrue(sources.contains(mountAt(container, "/etc/dockyard/secrets").getMountPath()));
        assertEquals("config", mountAt(container, "/etc/dockyard/config").getName());
        assertEquals("secrets", mountAt(container, "/etc/dockyard/secrets").getName());
    }

    @Test
    void shouldKeepSecretsOutOfTheEnvironmentAndTheConfigMap() throws IOException {
        Container container = container();
        if (container.getEnv() != null) {
            container.getEnv().forEach(e -> assertTrue(e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null,
                    e.getName() + " takes a secret into the environment"));
        }
        assertTrue(container.getEnvFrom() == null || container.getEnvFrom().isEmpty(), "no envFrom");
        Secret secret = load("secret.yaml");
        ConfigMap config = load("configmap.yaml");
        for (String key : secret.getStringData().keySet()) {
            assertFalse(config.getData().containsKey(key), key + " is in the ConfigMap too");
        }
        for (String key : config.getData().keySet()) {
            assertFalse(key.matches(".*(admin-key|secrets\\.key|password|token).*"), key + " belongs in the Secret");
        }
    }

    @Test
    void shouldShipTheSecretAsATemplateWithoutARealKey() throws IOException {
        Secret secret = load("secret.yaml");
        assertTrue(secret.getData() == null || secret.getData().isEmpty(), "no base64 data: stringData placeholders only");
        assertEquals(Set.of("dockyard.bootstrap.admin-key", "dockyard.secrets.key", "dockyard.db.password"),
                secret.getStringData().keySet());
        secret.getStringData().forEach((k, v) -> assertEquals(PLACEHOLDER, v, k + " must be a placeholder"));
        // nor anything key-like anywhere else in the manifests
        Pattern keyLike = Pattern.compile("dy_[A-Za-z0-9_-]{20,}|[A-Za-z0-9+/]{40,}={0,2}");
        try (Stream<Path> list = Files.list(MANIFESTS)) {
            for (Path file : list.toList()) {
                assertFalse(keyLike.matcher(Files.readString(file)).find(), file + " holds something key-like");
            }
        }
    }

    @Test
    void shouldBindTheBackendRoleToTheControlPlanesServiceAccount() throws IOException {
        RoleBinding binding = binding();
        assertEquals("Role", binding.getRoleRef().getKind());
        assertEquals("rbac.authorization.k8s.io", binding.getRoleRef().getApiGroup());
        assertEquals(ROLE, binding.getRoleRef().getName());
        ServiceAccount account = load("serviceaccount.yaml");
        assertEquals(1, binding.getSubjects().size());
        Subject subject = binding.getSubjects().get(0);
        assertEquals("ServiceAccount", subject.getKind());
        assertEquals(account.getMetadata().getName(), subject.getName());
        assertEquals(account.getMetadata().getNamespace(), subject.getNamespace());
    }

    @Test
    void shouldConfigureAnInClusterKubernetesNodeInTheControlPlanesNamespace() throws IOException {
        Map<String, String> data = ((ConfigMap) load("configmap.yaml")).getData();
        List<String> nodes = List.of(data.get("dockyard.nodes").split(","));
        assertFalse(nodes.isEmpty());
        for (String node : nodes) {
            assertTrue(data.containsKey("dockyard.node." + node.strip() + ".type"), node + " has no type");
        }
        String first = nodes.get(0).strip();
        assertEquals("kubernetes", data.get("dockyard.node." + first + ".type"));
        assertEquals(deployment().getMetadata().getNamespace(), data.get("dockyard.node." + first + ".namespace"));
        // in the cluster, executors are reached at their pod IPs, not through the API server
        assertEquals("pod-ip", data.get("dockyard.node." + first + ".executor-access"));
        assertTrue(Set.of("derby", "postgresql").contains(data.get("dockyard.db.kind")));
        assertTrue(Files.exists(ROOT.resolve("liberty/database/" + data.get("dockyard.db.kind") + ".xml")));
    }

    private static void assertProbe(Probe probe, String path) {
        assertNotNull(probe, path);
        assertEquals(path, probe.getHttpGet().getPath());
        assertEquals("http", probe.getHttpGet().getPort().getStrVal(), path + " probes the named port");
    }

    private static VolumeMount mountAt(Container container, String path) {
        return container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(path)).findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at " + path));
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private static Deployment deployment() throws IOException {
        return load("deployment.yaml");
    }

    private static RoleBinding binding() throws IOException {
        return load("rolebinding.yaml");
    }

    private static Container container() throws IOException {
        List<Container> containers = deployment().getSpec().getTemplate().getSpec().getContainers();
        assertEquals(1, containers.size());
        return containers.get(0);
    }

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> T load(String file) throws IOException {
        try (InputStream in = Files.newInputStream(MANIFESTS.resolve(file))) {
            Object object = Serialization.unmarshal(in);
            assertTrue(object instanceof HasMetadata, file + " is not one Kubernetes object");
            return (T) object;
        }
    }

    private static Map<?, ?> yaml(String file) throws IOException {
        try (InputStream in = Files.newInputStream(MANIFESTS.resolve(file))) {
            return Serialization.unmarshal(in, Map.class);
        }
    }

    private static String dockerfile() throws IOException {
        return Files.readString(ROOT.resolve("docker/control-plane/Dockerfile"));
    }

    /** A variable the Dockerfile's ENV sets ({@code NAME=value}, unquoted or double-quoted). */
    private static String env(String dockerfile, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\"[^\"]*\"|\\S+)").matcher(dockerfile);
        assertTrue(m.find(), "the Dockerfile sets no " + name);
        return m.group(1).replace("\"", "");
    }

    private static int serverHttpPort() throws IOException {
        Matcher m = Pattern.compile("<variable name=\"http.port\" defaultValue=\"(\\d+)\"/>")
                .matcher(Files.readString(ROOT.resolve("server.xml")));
        assertTrue(m.find(), "server.xml names no default http.port");
        return Integer.parseInt(m.group(1));
    }

    private static String version() throws IOException {
        Properties build = new Properties();
        try (InputStream in = KubernetesManifestsTest.class.getResourceAsStream("/dev/dockyard/build.properties")) {
            build.load(in);
        }
        return build.getProperty("version");
    }
}
