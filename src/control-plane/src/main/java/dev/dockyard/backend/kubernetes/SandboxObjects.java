package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Kubernetes objects of one sandbox, built from its {@link SandboxSpec} and the node's
 * settings: a Secret with the session key, a PersistentVolumeClaim for its workspace, and the Pod.
 *
 * <p>The key never travels in the pod's environment, which holds only how the executor starts
 * ({@link ExecutorServer#VARIABLE}, no secret). The Secret is mounted only into a small init
 * container, which copies it into a memory-backed emptyDir at the executor's key directory; the
 * executor reads the copy and deletes it (as on Docker), so the agent's shell finds no key later,
 * while a restarted pod (a woken hibernation) gets it again from the Secret.
 *
 * <p>Every object carries {@link SandboxSpec#labels()} where the value is a valid label value, and
 * all of them as annotations (the runtime and conversation ids are read from there), plus
 * {@link #SANDBOX} naming the sandbox they belong to.
 */
final class SandboxObjects {

    /** On every object of a sandbox: the sandbox (pod) name. */
    static final String SANDBOX = "dev.dockyard.sandbox";
    /** On the Secret: the pod as created, so that a hibernated sandbox's pod can be made again. */
    static final String POD_TEMPLATE = "dev.dockyard.pod-template";

    static final String EXECUTOR = "executor";
    static final String KEY_COPY = "session-key";
    static final String KEY_DIR = "/opt/dockyard/run";
    static final String SECRET_DIR = "/opt/dockyard/secret";
    static final String KEY_FILE = "session-key";
    static final String PLUGINS_FILE = "plugins";
    static final String WORKSPACE = "/workspace";

    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

    private final KubernetesNodeConfig node;

    SandboxObjects(KubernetesNodeConfig node) {
        this.node = node;
    }

    static String secretName(String sandboxName) {
        return sandboxName + "-key";
    }

    /** The claim a sandbox creates for itself (the Docker volume's name: one naming across nodes). */
    static String claimName(String sandboxName) {
        return SandboxWorkspace.ownVolume(sandboxName);
    }

    ObjectMeta meta(String name, String sandboxName, Map<String, String> labels) {
        Map<String, String> valid = new LinkedHashMap<>();
        labels.forEach((k, v) -> {
            if (LABEL_VALUE.matcher(v).matches()) {
                valid.put(k, v);
            }
        });
        Map<String, String> annotations = new LinkedHashMap<>(labels);
        annotations.put(SANDBOX, sandboxName);
        return new ObjectMetaBuilder().withName(name).withLabels(valid).withAnnotations(annotations).build();
    }

    Secret secret(SandboxSpec spec) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(KEY_FILE, base64(spec.sessionKey()));
        if (!spec.plugins().isEmpty()) {
            data.put(PLUGINS_FILE, base64(String.join("\n", spec.plugins())));
        }
        return new SecretBuilder().withMetadata(meta(secretName(spec.name()), spec.name(), spec.labels()))
                .withType("Opaque").withImmutable(false).withData(data).build();
    }

    static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    /** The sandbox's own workspace claim, or null when it mounts a kept one. */
    PersistentVolumeClaim claim(SandboxSpec spec) {
        SandboxWorkspace workspace = workspace(spec);
        if (workspace.kind() == SandboxWorkspace.Kind.MOUNT) {
            return null;
        }
        int mb = workspace.diskMb() > 0 ? workspace.diskMb() : node.workspaceMb();
        PersistentVolumeClaimBuilder claim = new PersistentVolumeClaimBuilder()
                .withMetadata(meta(claimName(spec.name()), spec.name(), spec.labels()))
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources().addToRequests("storage", new Quantity(mb + "Mi")).endResources()
                .endSpec();
        node.storageClass().ifPresent(c -> claim.editSpec().withStorageClassName(c).endSpec());
        return claim.build();
    }

    static SandboxWorkspace workspace(SandboxSpec spec) {
        SandboxWorkspace workspace = spec.workspace() == null ? SandboxWorkspace.fresh(0) : spec.workspace();
        if (workspace.kind() == SandboxWorkspace.Kind.COPY) {
            throw new BackendException("Kubernetes nodes take no snapshots: a workspace cannot start as a copy");
        }
        return workspace;
    }

    Pod pod(SandboxSpec spec) {
        if (spec.process() != null) {
            throw new BackendException("Kubernetes nodes run Dockyard's executor only, not an image's own program");
        }
        long[] user = user(spec.user());
        SandboxWorkspace workspace = workspace(spec);
        String claim = workspace.kind() == SandboxWorkspace.Kind.MOUNT ? workspace.volume() : claimName(spec.name());
        ResourceRequirements resources = resources(spec.cpus(), spec.memoryMb());
        List<KeyToPath> items = new ArrayList<>();
        items.add(new KeyToPath(KEY_FILE, 0440, KEY_FILE));
        if (!spec.plugins().isEmpty()) {
            items.add(new KeyToPath(PLUGINS_FILE, 0440, PLUGINS_FILE));
        }
        Container keyCopy = new ContainerBuilder().withName(KEY_COPY).withImage(spec.image())
                .withCommand("/bin/sh", "-c", "cp " + SECRET_DIR + "/* " + KEY_DIR + "/ && chmod 0400 " + KEY_DIR + "/*")
                .withResources(resources)
                .withSecurityContext(containerSecurity(user))
                .addNewVolumeMount().withName("key").withMountPath(SECRET_DIR).withReadOnly(true).endVolumeMount()
                .addNewVolumeMount().withName("run").withMountPath(KEY_DIR).endVolumeMount()
                .build();
        ContainerBuilder executor = new ContainerBuilder().withName(EXECUTOR).withImage(spec.image())
                .addNewPort().withName(EXECUTOR).withContainerPort(spec.executorPort()).withProtocol("TCP").endPort()
                .withResources(resources)
                .withSecurityContext(containerSecurity(user))
                .withNewReadinessProbe()
                .withNewHttpGet().withPath("/ready").withNewPort(spec.executorPort()).endHttpGet()
                .withPeriodSeconds(2).withFailureThreshold(3)
                .endReadinessProbe()
                .addNewVolumeMount().withName("run").withMountPath(KEY_DIR).endVolumeMount()
                .addNewVolumeMount().withName("workspace").withMountPath(WORKSPACE).endVolumeMount();
        if (spec.executorServer() != null) {
            // how the image's start script boots the executor: no secret, and kept in the pod template a
            // woken hibernation makes the pod from again, so the sandbox comes back the same way
            executor.addNewEnv().withName(ExecutorServer.VARIABLE).withValue(spec.executorServer().apiName()).endEnv();
        }
        node.imagePullPolicy().ifPresent(policy -> {
            executor.withImagePullPolicy(policy);
            keyCopy.setImagePullPolicy(policy);
        });
        List<Volume> volumes = List.of(
                new VolumeBuilder().withName("key").withNewSecret().withSecretName(secretName(spec.name()))
                        .withDefaultMode(0440).withItems(items).endSecret().build(),
                new VolumeBuilder().withName("run").withNewEmptyDir().withMedium("Memory")
                        .withSizeLimit(new Quantity("1Mi")).endEmptyDir().build(),
                new VolumeBuilder().withName("workspace").withNewPersistentVolumeClaim().withClaimName(claim)
                        .endPersistentVolumeClaim().build());
        PodBuilder pod = new PodBuilder().withMetadata(meta(spec.name(), spec.name(), spec.labels()))
                .withNewSpec()
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(2L)
                // Liberty names its wildcard address (a reverse lookup of 0.0.0.0): answered from
                // /etc/hosts, not DNS, as on Docker
                .addNewHostAlias().withIp("0.0.0.0").withHostnames("unspecified-address").endHostAlias()
                .withNewSecurityContext()
                .withRunAsUser(user[0]).withRunAsGroup(user[1]).withFsGroup(user[1]).withRunAsNonRoot(true)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .withInitContainers(keyCopy)
                .withContainers(executor.build())
                .withVolumes(volumes)
                .withNodeSelector(node.nodeSelector().isEmpty() ? null : node.nodeSelector())
                .withTolerations(node.tolerations())
                .withImagePullSecrets(node.imagePullSecrets().stream().map(LocalObjectReference::new).toList())
                .endSpec();
        node.runtimeClass().ifPresent(c -> pod.editSpec().withRuntimeClassName(c).endSpec());
        return pod.build();
    }

    private ResourceRequirements resources(double cpus, int memoryMb) {
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        amounts.put("cpu", new Quantity(Math.round(cpus * 1000) + "m"));
        amounts.put("memory", new Quantity(memoryMb + "Mi"));
        Map<String, Quantity> limits = new LinkedHashMap<>(amounts);
        if (node.ephemeralStorageMb() > 0) {
            limits.put("ephemeral-storage", new Quantity(node.ephemeralStorageMb() + "Mi"));
        }
        return new ResourceRequirementsBuilder().withRequests(amounts).withLimits(limits).build();
    }

    private static SecurityContext containerSecurity(long[] user) {
        return new SecurityContextBuilder()
                .withRunAsUser(user[0]).withRunAsGroup(user[1]).withRunAsNonRoot(true)
                .withAllowPrivilegeEscalation(false).withPrivileged(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }

    /** uid and gid of {@code uid[:gid]}: numeric and not root, as runAsNonRoot needs. */
    static long[] user(String user) {
        String value = user == null ? "1000" : user;
        try {
            String[] parts = value.split(":");
            long uid = Long.parseLong(parts[0]);
            long gid = parts.length > 1 ? Long.parseLong(parts[1]) : uid;
            if (uid == 0) {
                throw new BackendException("Kubernetes sandboxes run as a non-root user, not uid 0");
            }
            return new long[] {uid, gid};
        } catch (NumberFormatException e) {
            throw new BackendException("Kubernetes sandboxes need a numeric user (uid[:gid]), not '" + value + "'", e);
        }
    }

    /** A label or annotation of an object's metadata, or null. */
    static String annotation(ObjectMeta meta, String key) {
        return meta.getAnnotations() == null ? null : meta.getAnnotations().get(key);
    }

    static boolean isManagedBy(ObjectMeta meta, String controlPlane) {
        return controlPlane.equals(annotation(meta, Labels.CONTROL_PLANE));
    }
}
