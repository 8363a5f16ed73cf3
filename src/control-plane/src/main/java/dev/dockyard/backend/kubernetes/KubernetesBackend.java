package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.WorkspaceVolume;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sandboxes as Kubernetes pods in one namespace (a node of type {@code kubernetes}): one runtime is
 * one Pod plus its Secret (the session key, see {@link SandboxObjects}) and its workspace's
 * PersistentVolumeClaim, all labelled like Docker resources and removed with it.
 *
 * <p>There is no freezer: {@link #capabilities()} say it does not freeze, so a pause hibernates instead. Stopping
 * deletes the pod and keeps the Secret and the claim; reviving makes the pod again from the
 * template kept on the Secret, with the new session key in the Secret. Limits are set once at
 * creation ({@link #settle} changes nothing: pods are not resized here). Workspaces stream in and
 * out as tar through the pod's exec subresource, so a runtime migrates between Docker and
 * Kubernetes nodes.
 *
 * <p>The executor is reached at the pod's IP ({@code executor-access=pod-ip}), or through a
 * port-forward over the API server ({@code api-proxy}) when the control plane runs outside the
 * cluster. Where a cluster's network maps pod ports elsewhere (the tests' kubelet stand-in runs
 * pods as local containers), the pod's {@link #EXECUTOR_PORT} annotation names the port.
 */
public class KubernetesBackend implements RuntimeBackend {

    private static final Logger LOG = Logger.getLogger(KubernetesBackend.class.getName());

    /** On a pod, set by the cluster side: the port its executor answers at on the pod IP, if not its own. */
    public static final String EXECUTOR_PORT = "dev.dockyard.executor-port";
    private static final Duration POLL = Duration.ofMillis(250);
    private static final long STOP_SECONDS = 2;

    private final KubernetesClient client;
    private final KubernetesNodeConfig node;
    private final String namespace;
    private final SandboxObjects objects;
    private final Clock clock;
    private final Map<String, LocalPortForward> forwards = new ConcurrentHashMap<>();

    public KubernetesBackend(KubernetesClient client, KubernetesNodeConfig node, Clock clock) {
        this.client = client;
        this.node = node;
        this.namespace = node.namespace().orElseGet(() -> Objects.requireNonNullElse(client.getNamespace(), "default"));
        this.objects = new SandboxObjects(node);
        this.clock = clock;
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    /** No freezer in a pod: a pause hibernates the runtime instead. */
    @Override
    public BackendCapabilities capabilities() {
        return BackendCapabilities.ENGINE.withoutFreezer();
    }

    /**
     * The node's health probe: lists at most one of Dockyard's pods in the namespace, a call the
     * Role grants anyway (listing pods), so the probe proves both that the API server answers and
     * that this control plane may still work in the namespace.
     */
    @Override
    public void ping() {
        try {
            client.pods().inNamespace(namespace).withLabel(Labels.MANAGED, "true")
                    .list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (RuntimeException e) {
            throw new BackendException("Kubernetes did not answer in namespace " + namespace + ": " + describe(e), e);
        }
    }

    public String namespace() {
        return namespace;
    }

    @Override
    public String create(SandboxSpec spec) {
        if (spec.egress().ownNetwork()) {
            // enforced by packet-filter rules on a Docker engine's host; a cluster's is a NetworkPolicy's job
            throw new BackendException("sandbox.network '" + spec.egress().mode().apiName() + "' is not supported on "
                    + "Kubernetes nodes: only 'open'");
        }
        Pod pod = objects.pod(spec);
        PersistentVolumeClaim claim = objects.claim(spec);
        Secret secret = objects.secret(spec);
        secret.getMetadata().getAnnotations().put(SandboxObjects.POD_TEMPLATE, Serialization.asJson(pod));
        try {
            client.secrets().inNamespace(namespace).resource(secret).create();
        } catch (KubernetesClientException e) {
            throw new BackendException(e.getCode() == 409 ? "a sandbox named '" + spec.name() + "' already exists"
                    : "Kubernetes refused the sandbox's Secret: " + describe(e), e);
        }
        try {
            if (claim != null) {
                client.persistentVolumeClaims().inNamespace(namespace).resource(claim).create();
            }
            return client.pods().inNamespace(namespace).resource(pod).create().getMetadata().getUid();
        } catch (KubernetesClientException e) {
            removeQuietly(spec.name());
            throw new BackendException("Kubernetes refused the sandbox's pod or claim: " + describe(e), e);
        }
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        running(sandboxName);
        return endpoint(sandboxName, executorPort);
    }

    /** Waits until the pod runs (scheduled, image pulled, init done); a pod that cannot run fails at once. */
    private Pod running(String sandboxName) {
        Instant deadline = clock.instant().plusSeconds(node.startTimeoutSeconds());
        while (true) {
            Pod pod = pod(sandboxName);
            if (pod == null) {
                throw new BackendException("pod '" + sandboxName + "' disappeared before it ran");
            }
            SandboxState state = PodStates.of(pod);
            if (state.phase() == SandboxState.Phase.RUNNING && pod.getStatus().getPodIP() != null) {
                return pod;
            }
            if (state.isGone()) {
                throw new BackendException("pod '" + sandboxName + "' cannot run: " + state.logTail());
            }
            if (clock.instant().isAfter(deadline)) {
                throw new BackendException("pod '" + sandboxName + "' did not run within " + node.startTimeoutSeconds()
                        + " s (still " + Optional.ofNullable(pod.getStatus()).map(s -> s.getPhase()).orElse("Pending")
                        + "; dockyard.node." + node.node() + ".start-timeout)");
            }
            sleep();
        }
    }

    @Override
    public URI endpoint(String sandboxName, int executorPort) {
        Pod pod = pod(sandboxName);
        if (pod == null || pod.getStatus() == null || pod.getStatus().getPodIP() == null) {
            throw new BackendException("pod '" + sandboxName + "' is gone or has no IP yet");
        }
        if (node.executorAccess() == KubernetesNodeConfig.ExecutorAccess.API_PROXY) {
            LocalPortForward forward = forwards.compute(sandboxName, (name, old) -> old != null && old.isAlive() ? old
                    : client.pods().inNamespace(namespace).withName(name)
                    .portForward(executorPort, InetAddress.getLoopbackAddress(), 0));
            return URI.create("http://127.0.0.1:" + forward.getLocalPort());
        }
        String mapped = SandboxObjects.annotation(pod.getMetadata(), EXECUTOR_PORT);
        String host = pod.getStatus().getPodIP();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
                + (mapped == null ? executorPort : Integer.parseInt(mapped)));
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        Secret secret = secret(sandboxName);
        if (secret == null) {
            throw new BackendException("sandbox '" + sandboxName + "' is gone (no Secret)");
        }
        Pod existing = pod(sandboxName);
        if (existing != null && PodStates.of(existing).phase() == SandboxState.Phase.RUNNING) {
            return start(sandboxName, executorPort);
        }
        closeForward(sandboxName);
        if (existing != null) {
            deletePod(sandboxName);
        }
        client.secrets().inNamespace(namespace).withName(secret.getMetadata().getName())
                .edit(s -> {
                    s.getData().put(SandboxObjects.KEY_FILE, SandboxObjects.base64(sessionKey));
                    return s;
                });
        Pod template = Serialization.unmarshal(SandboxObjects.annotation(secret.getMetadata(),
                SandboxObjects.POD_TEMPLATE), Pod.class);
        awaitGone(sandboxName);
        try {
            client.pods().inNamespace(namespace).resource(template).create();
        } catch (KubernetesClientException e) {
            throw new BackendException("Kubernetes refused the sandbox's pod: " + describe(e), e);
        }
        return start(sandboxName, executorPort);
    }

    private void awaitGone(String sandboxName) {
        Instant deadline = clock.instant().plusSeconds(30);
        while (pod(sandboxName) != null) {
            if (clock.instant().isAfter(deadline)) {
                throw new BackendException("the old pod '" + sandboxName + "' was not deleted within 30 s");
            }
            sleep();
        }
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        // requests and limits are the runtime's own from creation: a pod is not resized in place here
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        Pod pod;
        try {
            pod = pod(sandboxName);
        } catch (KubernetesClientException e) {
            throw new BackendException("Kubernetes could not read pod '" + sandboxName + "': " + describe(e), e);
        }
        if (pod == null) {
            return secret(sandboxName) == null ? SandboxState.missing()
                    : new SandboxState(SandboxState.Phase.EXITED, null, "its pod is deleted (stopped); its claim is kept");
        }
        SandboxState state = PodStates.of(pod);
        if (state.phase() != SandboxState.Phase.EXITED || !"Failed".equals(phaseOf(pod))) {
            return state;
        }
        return new SandboxState(state.phase(), state.exitCode(), state.logTail() + logTail(sandboxName));
    }

    private String logTail(String sandboxName) {
        try {
            String log = client.pods().inNamespace(namespace).withName(sandboxName).inContainer(SandboxObjects.EXECUTOR)
                    .tailingLines(20).getLog();
            return log == null || log.isBlank() ? "" : "\n" + log.strip();
        } catch (KubernetesClientException e) {
            return "";
        }
    }

    /** No freezer on Kubernetes: the caller hibernates instead ({@link #capabilities()}). */
    @Override
    public void pause(String sandboxName) {
    }

    @Override
    public void unpause(String sandboxName) {
    }

    /** Deletes the pod, keeping the Secret and the claim: {@link #revive} makes it again. */
    @Override
    public void stop(String sandboxName) {
        if (secret(sandboxName) == null && pod(sandboxName) == null) {
            throw new BackendException("sandbox '" + sandboxName + "' is gone");
        }
        closeForward(sandboxName);
        deletePod(sandboxName);
    }

    private void deletePod(String sandboxName) {
        try {
            client.pods().inNamespace(namespace).withName(sandboxName).withGracePeriod(STOP_SECONDS).delete();
        } catch (KubernetesClientException e) {
            throw new BackendException("Kubernetes could not delete pod '" + sandboxName + "': " + describe(e), e);
        }
    }

    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        Map<String, String> selector = Map.of(Labels.MANAGED, "true", Labels.CONTROL_PLANE, controlPlane);
        try {
            List<ManagedSandbox> sandboxes = new ArrayList<>();
            Map<String, Pod> pods = new HashMap<>();
            client.pods().inNamespace(namespace).withLabels(selector).list().getItems()
                    .forEach(p -> pods.put(p.getMetadata().getName(), p));
            pods.values().forEach(p -> sandboxes.add(managed(p.getMetadata(), PodStates.of(p).phase())));
            // a sandbox whose pod is deleted (hibernated, stopped) is still there: its Secret says so
            for (Secret secret : client.secrets().inNamespace(namespace).withLabels(selector).list().getItems()) {
                String sandbox = SandboxObjects.annotation(secret.getMetadata(), SandboxObjects.SANDBOX);
                if (sandbox != null && !pods.containsKey(sandbox)) {
                    sandboxes.add(managed(secret.getMetadata(), SandboxState.Phase.EXITED));
                }
            }
            return sandboxes;
        } catch (RuntimeException e) {
            throw new BackendException("Kubernetes could not list the managed sandboxes in namespace " + namespace
                    + ": " + describe(e), e);
        }
    }

    private static ManagedSandbox managed(ObjectMeta meta, SandboxState.Phase phase) {
        return new ManagedSandbox(SandboxObjects.annotation(meta, SandboxObjects.SANDBOX),
                SandboxObjects.annotation(meta, Labels.RUNTIME_ID), SandboxObjects.annotation(meta, Labels.CONVERSATION_ID),
                meta.getCreationTimestamp() == null ? Instant.EPOCH : Instant.parse(meta.getCreationTimestamp()), phase);
    }

    @Override
    public InputStream archive(String sandboxName, String path) {
        running(sandboxName);
        return PodTar.archive(client.pods().inNamespace(namespace).withName(sandboxName)
                .inContainer(SandboxObjects.EXECUTOR), path);
    }

    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        // a created sandbox's pod runs at once: its workspace is filled while the executor boots
        running(sandboxName);
        PodTar.restore(client.pods().inNamespace(namespace).withName(sandboxName)
                .inContainer(SandboxObjects.EXECUTOR), directory, tar);
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        throw new BackendException("Kubernetes nodes run Dockyard's executor only: no program environment to rewrite");
    }

    @Override
    public void remove(String sandboxName) {
        closeForward(sandboxName);
        try {
            client.pods().inNamespace(namespace).withName(sandboxName).withGracePeriod(STOP_SECONDS).delete();
            client.secrets().inNamespace(namespace).withName(SandboxObjects.secretName(sandboxName)).delete();
            // its own claim goes with it; a kept one it mounted stays
            client.persistentVolumeClaims().inNamespace(namespace).withName(SandboxObjects.claimName(sandboxName))
                    .delete();
        } catch (KubernetesClientException e) {
            throw new BackendException("Kubernetes could not remove sandbox '" + sandboxName + "': " + describe(e), e);
        }
    }

    @Override
    public String workspaceVolume(String sandboxName) {
        Pod pod = pod(sandboxName);
        if (pod == null) {
            Secret secret = secret(sandboxName);
            if (secret == null) {
                return null;
            }
            pod = Serialization.unmarshal(SandboxObjects.annotation(secret.getMetadata(), SandboxObjects.POD_TEMPLATE),
                    Pod.class);
        }
        return pod.getSpec().getVolumes().stream().map(Volume::getPersistentVolumeClaim).filter(Objects::nonNull)
                .map(c -> c.getClaimName()).findFirst().orElse(null);
    }

    @Override
    public void removeWorkspace(String volume) {
        client.persistentVolumeClaims().inNamespace(namespace).withName(volume).delete();
    }

    @Override
    public List<WorkspaceVolume> listWorkspaces(String controlPlane) {
        try {
            Map<String, String> selector = Map.of(Labels.MANAGED, "true", Labels.CONTROL_PLANE, controlPlane);
            List<String> sandboxes = client.secrets().inNamespace(namespace).withLabels(selector).list().getItems()
                    .stream().map(s -> SandboxObjects.annotation(s.getMetadata(), SandboxObjects.SANDBOX)).toList();
            return client.persistentVolumeClaims().inNamespace(namespace).withLabels(selector).list().getItems().stream()
                    .map(c -> new WorkspaceVolume(c.getMetadata().getName(),
                            SandboxObjects.annotation(c.getMetadata(), Labels.RUNTIME_ID),
                            c.getMetadata().getCreationTimestamp() == null ? Instant.EPOCH
                                    : Instant.parse(c.getMetadata().getCreationTimestamp()),
                            // a hibernated sandbox has no pod but still owns its claim
                            sandboxes.contains(SandboxObjects.annotation(c.getMetadata(), SandboxObjects.SANDBOX))))
                    .toList();
        } catch (RuntimeException e) {
            throw new BackendException("Kubernetes could not list the workspace claims in namespace " + namespace
                    + ": " + describe(e), e);
        }
    }

    private Pod pod(String sandboxName) {
        return client.pods().inNamespace(namespace).withName(sandboxName).get();
    }

    private Secret secret(String sandboxName) {
        return client.secrets().inNamespace(namespace).withName(SandboxObjects.secretName(sandboxName)).get();
    }

    private static String phaseOf(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private void closeForward(String sandboxName) {
        LocalPortForward forward = forwards.remove(sandboxName);
        if (forward != null) {
            try {
                forward.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing the port-forward of " + sandboxName, e);
            }
        }
    }

    private void removeQuietly(String sandboxName) {
        try {
            remove(sandboxName);
        } catch (RuntimeException e) {
            // the reconciler removes labelled leftovers after its grace
            LOG.warning("Could not remove the objects of sandbox " + sandboxName + ": " + e.getMessage());
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for a pod");
        }
    }

    static String describe(Exception e) {
        String message = e.getMessage();
        String described = message == null ? e.getClass().getSimpleName() : message.strip();
        // the client's generic wrapper ("An error has occurred.") says nothing: name what it wraps
        Throwable cause = e.getCause();
        while (cause != null && cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        if (cause != null && cause != e) {
            String inner = cause.getMessage();
            String name = cause.getClass().getSimpleName() + (inner == null ? "" : ": " + inner.strip());
            if (!described.contains(name)) {
                described = described + " (" + name + ")";
            }
        }
        return described;
    }
}
