package it.dev.dockyard.support;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * A test-only stand-in for the kubelet (never part of the product): it watches the pods of one
 * namespace of fabric8's mock API server and runs each as real containers on the local Docker
 * engine, as a kubelet would with a container runtime: init containers to completion, then the
 * main container, with the pod's volumes (a Secret's items copied in at its mount path, an
 * emptyDir and a PersistentVolumeClaim as Docker volumes), user, capabilities, memory and CPU
 * limits. It reports back what a kubelet reports: phase Running and the pod IP, or the waiting or
 * terminated state that stopped it (ErrImagePull for an image the engine does not have,
 * OOMKilled, an exit code).
 *
 * <p>Networking: a pod's IP is 127.0.0.1, and its first container port is published on a free
 * port of 127.0.0.1, which the stand-in writes into the pod's {@code dev.dockyard.executor-port}
 * annotation (the Kubernetes backend honours it, for clusters whose network maps pod ports).
 * A deleted pod's containers and emptyDirs are removed; a deleted claim's volume too. Everything
 * it creates carries {@link #LABEL}, so {@link #close()} leaves nothing behind.
 *
 * <p>{@link #failWith} makes it report a fault for the pods of one conversation (label
 * {@code dev.dockyard.conversation-id}) once their main container started: {@code OOMKilled}
 * kills the container and reports it OOM-killed, as a node does whose container outgrew its limit.
 */
public final class KubeletStandIn implements AutoCloseable {

    public static final String LABEL = "dev.dockyard.test-kubelet";
    private static final Logger LOG = Logger.getLogger(KubeletStandIn.class.getName());

    /** One pod as run here. */
    record Run(String uid, String name, String container, List<String> volumes) {
    }

    private final KubernetesClient client;
    private final String namespace;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Set<String> failed = ConcurrentHashMap.newKeySet();
    private final Set<String> claims = ConcurrentHashMap.newKeySet();
    private final Map<String, String> faults = new ConcurrentHashMap<>();

    public KubeletStandIn(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    public void start() {
        loop.scheduleWithFixedDelay(this::tick, 0, 200, TimeUnit.MILLISECONDS);
    }

    public void failWith(String conversationId, String reason) {
        faults.put(conversationId, reason);
    }

    /** The Docker container running the pod {@code podName} now, if any. */
    public Optional<String> containerOf(String podName) {
        return runs.values().stream().filter(r -> r.name().equals(podName)).map(Run::container).findFirst();
    }

    private void tick() {
        try {
            List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
            Set<String> present = pods.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
            for (String uid : List.copyOf(runs.keySet())) {
                if (!present.contains(uid) && stopRun(runs.get(uid))) {
                    runs.remove(uid);
                }
            }
            for (Pod pod : pods) {
                String uid = pod.getMetadata().getUid();
                if (failed.contains(uid)) {
                    continue;
                }
                Run run = runs.get(uid);
                if (run == null) {
                    run(pod);
                } else {
                    watchExit(pod, run);
                }
            }
            Set<String> liveClaims = client.persistentVolumeClaims().inNamespace(namespace).list().getItems().stream()
                    .map(c -> c.getMetadata().getName()).collect(Collectors.toSet());
            for (String claim : List.copyOf(claims)) {
                // a volume still held by a container on its way out is tried again at the next tick
                if (!liveClaims.contains(claim) && removed(DockerCli.run("volume", "rm", "-f", claimVolume(claim)))) {
                    claims.remove(claim);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "kubelet stand-in tick failed", e);
        }
    }

    private void run(Pod pod) {
        String uid = pod.getMetadata().getUid();
        String name = pod.getMetadata().getName();
        String suffix = name + "-" + uid;
        List<Container> inits = Optional.ofNullable(pod.getSpec().getInitContainers()).orElse(List.of());
        for (Container container : concat(inits, pod.getSpec().getContainers())) {
            if (DockerCli.run("image", "inspect", container.getImage()).exitCode() != 0) {
                report(pod, "Pending", waiting(container, "ErrImagePull", "rpc error: pull access denied for "
                        + container.getImage() + ", repository does not exist (kubelet stand-in: not on the local engine)"),
                        inits.contains(container));
                failed.add(uid);
                return;
            }
        }
        List<String> volumes = new ArrayList<>();
        Run run = new Run(uid, name, "k8s-" + suffix, volumes);
        runs.put(uid, run);
        for (Container init : inits) {
            String id = "k8s-" + suffix + "-" + init.getName();
            create(pod, init, id, run);
            DockerCli.Result result = DockerCli.run("start", "-a", id);
            String exit = DockerCli.inspect(id, "{{.State.ExitCode}}");
            DockerCli.run("rm", "-f", id);
            if (result.exitCode() != 0 || !"0".equals(exit)) {
                report(pod, "Failed", terminated(init, "Error", Integer.parseInt(exit), result.output()), true);
                failed.add(uid);
                return;
            }
        }
        Container main = pod.getSpec().getContainers().get(0);
        create(pod, main, run.container(), run);
        DockerCli.ok("start", run.container());
        String published = DockerCli.ok("port", run.container(), main.getPorts().get(0).getContainerPort() + "/tcp");
        String port = published.lines().findFirst().orElseThrow().replaceAll(".*:", "");
        client.pods().inNamespace(namespace).withName(name).edit(p -> {
            p.getMetadata().getAnnotations().put("dev.dockyard.executor-port", port);
            return p;
        });
        String fault = faults.get(String.valueOf(pod.getMetadata().getLabels().get("dev.dockyard.conversation-id")));
        if ("OOMKilled".equals(fault)) {
            DockerCli.run("kill", run.container());
            report(pod, "Failed", terminated(main, "OOMKilled", 137, null), false);
            failed.add(uid);
            return;
        }
        client.pods().inNamespace(namespace).withName(name).editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP("127.0.0.1").withHostIP("127.0.0.1")
                    .withContainerStatuses(new ContainerStatusBuilder().withName(main.getName()).withImage(main.getImage())
                            .withReady(false).withStarted(true).withNewState().withNewRunning().endRunning().endState()
                            .build())
                    .build());
            return p;
        });
    }

    /** A Docker container for one of the pod's containers, its volumes attached and its Secrets copied in. */
    private void create(Pod pod, Container container, String id, Run run) {
        List<String> args = new ArrayList<>(List.of("create", "--name", id, "--label", LABEL + "=" + run.uid(),
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges"));
        var security = pod.getSpec().getSecurityContext();
        Long uid = container.getSecurityContext() != null && container.getSecurityContext().getRunAsUser() != null
                ? container.getSecurityContext().getRunAsUser() : security.getRunAsUser();
        Long gid = security.getRunAsGroup() == null ? uid : security.getRunAsGroup();
        args.addAll(List.of("--user", uid + ":" + gid));
        if (security.getFsGroup() != null) {
            args.addAll(List.of("--group-add", String.valueOf(security.getFsGroup())));
        }
        Map<String, Quantity> limits = container.getResources().getLimits();
        if (limits.containsKey("memory")) {
            long bytes = Quantity.getAmountInBytes(limits.get("memory")).longValue();
            args.addAll(List.of("--memory", String.valueOf(bytes), "--memory-swap", String.valueOf(bytes)));
        }
        if (limits.containsKey("cpu")) {
            BigDecimal cpus = Quantity.getAmountInBytes(limits.get("cpu"));
            args.addAll(List.of("--cpus", cpus.toPlainString()));
        }
        for (HostAlias alias : Optional.ofNullable(pod.getSpec().getHostAliases()).orElse(List.of())) {
            alias.getHostnames().forEach(h -> args.addAll(List.of("--add-host", h + ":" + alias.getIp())));
        }
        Optional.ofNullable(container.getPorts()).orElse(List.of()).forEach(p ->
                args.addAll(List.of("-p", "127.0.0.1::" + p.getContainerPort())));
        List<VolumeMount> secrets = new ArrayList<>();
        for (VolumeMount mount : Optional.ofNullable(container.getVolumeMounts()).orElse(List.of())) {
            Volume volume = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(mount.getName()))
                    .findFirst().orElseThrow();
            if (volume.getSecret() != null) {
                secrets.add(mount);
                continue;
            }
            String dockerVolume;
            if (volume.getPersistentVolumeClaim() != null) {
                String claim = volume.getPersistentVolumeClaim().getClaimName();
                PersistentVolumeClaim bound = client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
                if (bound == null) {
                    throw new IllegalStateException("claim " + claim + " does not exist");
                }
                dockerVolume = claimVolume(claim);
                if (claims.add(claim)) {
                    DockerCli.run("volume", "create", "--label", LABEL + "=claim", dockerVolume);
                }
            } else {
                dockerVolume = "k8s-" + run.uid() + "-" + volume.getName();
                if (!run.volumes().contains(dockerVolume)) {
                    DockerCli.ok("volume", "create", "--label", LABEL + "=" + run.uid(), dockerVolume);
                    run.volumes().add(dockerVolume);
                }
            }
            args.addAll(List.of("--mount", "type=volume,source=" + dockerVolume + ",destination=" + mount.getMountPath()
                    + (Boolean.TRUE.equals(mount.getReadOnly()) ? ",readonly" : "")));
        }
        if (container.getCommand() != null && !container.getCommand().isEmpty()) {
            args.addAll(List.of("--entrypoint", container.getCommand().get(0)));
        }
        args.add(container.getImage());
        if (container.getCommand() != null && container.getCommand().size() > 1) {
            args.addAll(container.getCommand().subList(1, container.getCommand().size()));
        }
        Optional.ofNullable(container.getArgs()).ifPresent(args::addAll);
        DockerCli.ok(args.toArray(String[]::new));
        for (VolumeMount mount : secrets) {
            Volume volume = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(mount.getName()))
                    .findFirst().orElseThrow();
            copySecret(volume, mount.getMountPath(), id, security.getFsGroup());
        }
    }

    /** The Secret's items as files at {@code mountPath}: owned by root and the pod's fsGroup, as a kubelet does. */
    private void copySecret(Volume volume, String mountPath, String container, Long fsGroup) {
        Secret secret = client.secrets().inNamespace(namespace).withName(volume.getSecret().getSecretName()).get();
        try {
            Path dir = Files.createTempDirectory("kubelet-secret");
            Path mount = dir.resolve(Path.of(mountPath).getFileName().toString());
            Files.createDirectory(mount);
            List<KeyToPath> items = volume.getSecret().getItems();
            for (KeyToPath item : items) {
                Path file = mount.resolve(item.getPath());
                Files.write(file, Base64.getDecoder().decode(secret.getData().get(item.getKey())));
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r-----"));
            }
            String group = fsGroup == null ? "0" : String.valueOf(fsGroup);
            Process tar = new ProcessBuilder("tar", "-C", dir.toString(), "--owner=0", "--group=" + group,
                    "--numeric-owner", "-c", mount.getFileName().toString()).start();
            // a tar on stdin keeps its own owners (no -a: the engine would look the container's user up)
            Process cp = new ProcessBuilder("docker", "cp", "-", container + ":" + Path.of(mountPath).getParent())
                    .redirectErrorStream(true).start();
            try (OutputStream in = cp.getOutputStream()) {
                tar.getInputStream().transferTo(in);
            }
            String out = new String(cp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (cp.waitFor() != 0 || tar.waitFor() != 0) {
                throw new IllegalStateException("copying the Secret in failed: " + out);
            }
            try (var files = Files.walk(dir)) {
                files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A running pod whose container ended: Failed (restartPolicy Never), with how it ended. */
    private void watchExit(Pod pod, Run run) {
        if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
            return;
        }
        DockerCli.Result state = DockerCli.run("inspect", "--format", "{{.State.Running}} {{.State.OOMKilled}} "
                + "{{.State.ExitCode}}", run.container());
        if (state.exitCode() != 0 || state.output().startsWith("true")) {
            return;
        }
        String[] parts = state.output().split(" ");
        Container main = pod.getSpec().getContainers().get(0);
        report(pod, "Failed", terminated(main, "true".equals(parts[1]) ? "OOMKilled" : "Error",
                Integer.parseInt(parts[2]), null), false);
        failed.add(run.uid());
    }

    private void report(Pod pod, String phase, ContainerStatus status, boolean init) {
        client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).editStatus(p -> {
            PodStatusBuilder builder = new PodStatusBuilder().withPhase(phase);
            if (init) {
                builder.withInitContainerStatuses(status);
            } else {
                builder.withContainerStatuses(status);
            }
            p.setStatus(builder.build());
            return p;
        });
    }

    private static ContainerStatus waiting(Container container, String reason, String message) {
        return new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
                .withReady(false).withNewState().withNewWaiting().withReason(reason).withMessage(message).endWaiting()
                .endState().build();
    }

    private static ContainerStatus terminated(Container container, String reason, int exitCode, String message) {
        return new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
                .withReady(false).withNewState().withNewTerminated().withReason(reason).withExitCode(exitCode)
                .withMessage(message).endTerminated().endState().build();
    }

    /**
     * Removes a deleted pod's container and emptyDirs; false when the engine refused any of it (a
     * container it could not remove yet under load), so that the next tick tries again, as a kubelet
     * keeps at a pod's teardown until it is done.
     */
    private boolean stopRun(Run run) {
        if (run == null) {
            return true;
        }
        if (!removed(DockerCli.run("rm", "-f", run.container()))) {
            LOG.warning("kubelet stand-in: container " + run.container() + " not removed yet");
            return false;
        }
        run.volumes().removeIf(v -> removed(DockerCli.run("volume", "rm", "-f", v)));
        return run.volumes().isEmpty();
    }

    /** Whether a removal left nothing: done, or nothing of that name there. */
    private static boolean removed(DockerCli.Result result) {
        return result.exitCode() == 0 || result.output().contains("No such");
    }

    private String claimVolume(String claim) {
        return "k8s-" + namespace + "-" + claim;
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Override
    public void close() {
        loop.shutdownNow();
        try {
            loop.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String container : DockerCli.containersLabelled(LABEL)) {
            DockerCli.run("rm", "-f", container);
        }
        for (String volume : DockerCli.volumesLabelled(LABEL)) {
            DockerCli.run("volume", "rm", "-f", volume);
        }
    }
}
