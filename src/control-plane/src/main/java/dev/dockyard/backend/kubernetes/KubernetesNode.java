package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.InspectOnlyImages;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxIsolation;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import java.io.File;
import java.time.Clock;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * A node of type {@code kubernetes}: its client (fabric8 on OkHttp: see the control plane's pom), its backend
 * and its images. The client connects lazily: a cluster that does not answer fails its own node's
 * calls, not the control plane's start.
 */
public final class KubernetesNode implements BackendNode {

    private static final Logger LOG = Logger.getLogger(KubernetesNode.class.getName());

    private final KubernetesClient client;
    private final KubernetesBackend backend;
    private final RuntimeImageBuilder images;
    private final Optional<String> runtimeClassName;

    public KubernetesNode(KubernetesNodeConfig settings, Clock clock) {
        // no kubeconfig named: the pod's service account in a cluster, else the default kubeconfig
        Config config = settings.kubeconfig()
                .map(path -> Config.fromKubeconfig(settings.context().orElse(null), new File(path)))
                .orElseGet(() -> Config.autoConfigure(settings.context().orElse(null)));
        this.client = new KubernetesClientBuilder().withHttpClientFactory(new OkHttpClientFactory())
                .withConfig(config).build();
        this.backend = new KubernetesBackend(client, settings, clock);
        this.runtimeClassName = settings.runtimeClass();
        // the cluster pulls images from its registries, and Dockyard can neither see nor build them there:
        // every image named is taken as a runtime image as it is (one that is not, or cannot be pulled,
        // fails the pod, and so the runtime, with the cluster's reason)
        this.images = new InspectOnlyImages(image -> Optional.of(InspectOnlyImages.runtimeImage(image, image)),
                () -> new ImageBuildException("node '" + settings.node() + "' is a Kubernetes node: Dockyard builds "
                        + "no images there; build the runtime image elsewhere and push it to a registry the cluster "
                        + "pulls from"));
        LOG.info("Node '" + settings.node() + "': Kubernetes API " + config.getMasterUrl() + ", namespace "
                + backend.namespace() + ", executor access " + settings.executorAccess());
    }

    @Override
    public KubernetesBackend backend() {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images() {
        return images;
    }

    /**
     * What its pods run on: the cluster's default runtime (runc) when the node names no
     * RuntimeClass, gVisor when it names gVisor's ({@code gvisor} or {@code runsc}), else that
     * class's own name, which no request's runtime class equals.
     */
    @Override
    public Optional<String> defaultRuntimeClass() {
        return Optional.of(runtimeClassName.map(name -> switch (name) {
            case "runc" -> SandboxIsolation.RUNC;
            case "gvisor", "runsc" -> SandboxIsolation.GVISOR;
            default -> name;
        }).orElse(SandboxIsolation.RUNC));
    }

    @Override
    public void close() {
        client.close();
    }
}
