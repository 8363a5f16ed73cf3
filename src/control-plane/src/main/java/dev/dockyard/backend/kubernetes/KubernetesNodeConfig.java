package dev.dockyard.backend.kubernetes;

import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * One Kubernetes node's settings ({@code dockyard.node.<name>.*}, docs/backends.md "Kubernetes nodes"): which
 * cluster (the pod's own service account, or a kubeconfig file and context), which namespace, and
 * what every sandbox pod there gets.
 *
 * @param kubeconfig         a kubeconfig file; empty: in-cluster service account (or the default kubeconfig)
 * @param context            the kubeconfig's context; empty: its current one
 * @param namespace          where pods, secrets and claims go; empty: the client's own namespace
 * @param nodeSelector       {@code k=v,...}
 * @param tolerations        {@code key[=value]:Effect,...} (Equal with a value, Exists without)
 * @param imagePullPolicy    Always, IfNotPresent or Never; empty: the cluster's default
 * @param ephemeralStorageMb the pod's ephemeral-storage limit (0: none)
 * @param workspaceMb        the size requested for a sandbox's workspace claim
 * @param storageClass       the workspace claims' storage class; empty: the cluster's default
 * @param startTimeoutSeconds how long a pod may take to run (image pull and scheduling included)
 */
public record KubernetesNodeConfig(String node, Optional<String> kubeconfig, Optional<String> context,
                                   Optional<String> namespace, Optional<String> runtimeClass,
                                   Map<String, String> nodeSelector, List<Toleration> tolerations,
                                   List<String> imagePullSecrets, Optional<String> imagePullPolicy,
                                   ExecutorAccess executorAccess, int ephemeralStorageMb, int workspaceMb,
                                   Optional<String> storageClass, int startTimeoutSeconds) {

    /** How the control plane reaches a pod's executor. */
    public enum ExecutorAccess {
        /** Straight to the pod's IP: the control plane runs in the cluster network. */
        POD_IP,
        /** A port-forward through the API server: the control plane runs outside the cluster. */
        API_PROXY
    }

    public KubernetesNodeConfig {
        nodeSelector = Map.copyOf(nodeSelector);
        tolerations = List.copyOf(tolerations);
        imagePullSecrets = List.copyOf(imagePullSecrets);
    }

    /** The settings of {@code node}; {@code defaultWorkspaceMb} when it names no workspace size. */
    public static KubernetesNodeConfig read(Config config, String node, int defaultWorkspaceMb) {
        String prefix = "dockyard.node." + node + ".";
        Optional<String> kubeconfig = text(config, prefix + "kubeconfig");
        // pod-ip where Dockyard runs in a cluster (and names none other), api-proxy from outside
        boolean inCluster = kubeconfig.isEmpty() && System.getenv("KUBERNETES_SERVICE_HOST") != null;
        ExecutorAccess access = text(config, prefix + "executor-access")
                .map(v -> parseAccess(prefix, v))
                .orElse(inCluster ? ExecutorAccess.POD_IP : ExecutorAccess.API_PROXY);
        Optional<String> policy = text(config, prefix + "image-pull-policy");
        policy.filter(p -> !List.of("Always", "IfNotPresent", "Never").contains(p)).ifPresent(p -> {
            throw new IllegalStateException(prefix + "image-pull-policy: '" + p
                    + "' is not Always, IfNotPresent or Never");
        });
        return new KubernetesNodeConfig(node, kubeconfig, text(config, prefix + "context"),
                text(config, prefix + "namespace"), text(config, prefix + "runtime-class"),
                pairs(prefix + "node-selector", text(config, prefix + "node-selector").orElse("")),
                tolerations(prefix + "tolerations", text(config, prefix + "tolerations").orElse("")),
                list(text(config, prefix + "image-pull-secrets").orElse("")), policy, access,
                number(config, prefix + "ephemeral-storage-mb", 0),
                number(config, prefix + "workspace-mb", defaultWorkspaceMb > 0 ? defaultWorkspaceMb : 1024),
                text(config, prefix + "storage-class"), number(config, prefix + "start-timeout", 300));
    }

    private static ExecutorAccess parseAccess(String prefix, String value) {
        return switch (value) {
            case "pod-ip" -> ExecutorAccess.POD_IP;
            case "api-proxy" -> ExecutorAccess.API_PROXY;
            default -> throw new IllegalStateException(prefix + "executor-access: '" + value
                    + "' is not pod-ip or api-proxy");
        };
    }

    private static Optional<String> text(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(v -> !v.isEmpty());
    }

    private static int number(Config config, String key, int fallback) {
        int value = config.getOptionalValue(key, Integer.class).orElse(fallback);
        if (value < 0) {
            throw new IllegalStateException(key + ": must be >= 0, not " + value);
        }
        return value;
    }

    private static List<String> list(String value) {
        return Arrays.stream(value.split(",")).map(String::strip).filter(v -> !v.isEmpty()).toList();
    }

    static Map<String, String> pairs(String key, String value) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String pair : list(value)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalStateException(key + ": '" + pair + "' is not key=value");
            }
            pairs.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
        return pairs;
    }

    static List<Toleration> tolerations(String key, String value) {
        return list(value).stream().map(t -> {
            int colon = t.lastIndexOf(':');
            if (colon <= 0 || colon == t.length() - 1) {
                throw new IllegalStateException(key + ": '" + t + "' is not key[=value]:Effect");
            }
            String effect = t.substring(colon + 1);
            String match = t.substring(0, colon);
            int eq = match.indexOf('=');
            TolerationBuilder toleration = new TolerationBuilder().withEffect(effect);
            if (eq < 0) {
                return toleration.withKey(match).withOperator("Exists").build();
            }
            return toleration.withKey(match.substring(0, eq)).withOperator("Equal")
                    .withValue(match.substring(eq + 1)).build();
        }).toList();
    }
}
