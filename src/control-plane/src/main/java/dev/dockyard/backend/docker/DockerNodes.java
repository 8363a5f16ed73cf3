package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.NodeType;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.UnsupportedIsolationException;
import dev.dockyard.backend.cli.CliNode;
import dev.dockyard.backend.cli.CliNodeConfig;
import dev.dockyard.backend.kubernetes.KubernetesNode;
import dev.dockyard.backend.kubernetes.KubernetesNodeConfig;
import dev.dockyard.backend.local.LocalNode;
import dev.dockyard.backend.local.LocalNodeConfig;
import dev.dockyard.backend.remote.RemoteCalls;
import dev.dockyard.backend.remote.RemoteNode;
import dev.dockyard.backend.remote.RemoteNodeConfig;
import dev.dockyard.config.DockyardConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The Docker engines this control plane uses, one client each: {@code dockyard.nodes} names them
 * (default {@code local}), {@code dockyard.node.<name>.docker-host} says where each one answers
 * (for the first node, {@code dockyard.docker.host}, then DOCKER_HOST or the local socket).
 *
 * <p>Clients use the zero-dependency transport (no Jersey, which would clash with Liberty's own)
 * and a connection pool sized for concurrent provisioning. They connect lazily, so an engine that
 * is down makes its own node's calls fail, not the control plane's start.
 *
 * <p>A node of {@code dockyard.node.<name>.type=kubernetes} is a cluster namespace instead
 * ({@link KubernetesNode}); one of {@code type=remote} is another Dockyard control plane
 * ({@link RemoteNode}), one of {@code type=local} host processes ({@link LocalNode}), one of
 * {@code type=cli} the control plane's own host ({@link CliNode}); the rest of this class is about
 * Docker nodes. Nodes of every type have {@code executor-server} ({@link ExecutorServer}).
 */
@ApplicationScoped
public class DockerNodes implements BackendNodes {

    private static final Logger LOG = Logger.getLogger(DockerNodes.class.getName());

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    RemoteCalls remoteCalls;

    private final Map<String, RuntimeBackend> nodes = new LinkedHashMap<>();
    private final Map<String, DockerClient> clients = new LinkedHashMap<>();
    private final Map<String, RuntimeImageBuilder> builders = new LinkedHashMap<>();
    private final List<KubernetesNode> clusters = new ArrayList<>();
    private final List<CliNode> hosts = new ArrayList<>();
    private final Map<String, SandboxHostSettings> settings = new LinkedHashMap<>();
    private final Map<String, ExecutorServer> executorServers = new LinkedHashMap<>();

    @PostConstruct
    void connect() {
        List<String> names = config.nodes();
        for (String name : names) {
            // read at start, so that a wrong value stops the start rather than every reconciler pass later
            config.disconnectedGrace(name);
            // every type of node has one, a cli node too (it ignores it: its executor is in-process)
            executorServers.put(name, ExecutorServer.of(ConfigProvider.getConfig(), name));
            if (NodeType.of(ConfigProvider.getConfig(), name) == NodeType.KUBERNETES) {
                KubernetesNode cluster = new KubernetesNode(KubernetesNodeConfig.read(ConfigProvider.getConfig(), name,
                        config.sandboxDiskMb()), clock);
                clusters.add(cluster);
                nodes.put(name, cluster.backend());
                builders.put(name, cluster.images());
                continue;
            }
            if (NodeType.of(ConfigProvider.getConfig(), name) == NodeType.REMOTE) {
                RemoteNode remote = new RemoteNode(RemoteNodeConfig.read(ConfigProvider.getConfig(), name,
                        config.instance()), remoteCalls, config.executorPort(), config.sandboxUid(), clock,
                        ConfigProvider.getConfig());
                nodes.put(name, remote.backend());
                builders.put(name, remote.images());
                continue;
            }
            if (NodeType.of(ConfigProvider.getConfig(), name) == NodeType.LOCAL) {
                // host processes of this machine: see dev.dockyard.backend.local
                LocalNode local = new LocalNode(LocalNodeConfig.read(ConfigProvider.getConfig(), name, config.instance(),
                        config.imageBundle(), config.sandboxImage(), config.sandboxUser()), clock);
                nodes.put(name, local.backend());
                builders.put(name, local.images());
                continue;
            }
            if (NodeType.of(ConfigProvider.getConfig(), name) == NodeType.CLI) {
                CliNode host = new CliNode(CliNodeConfig.read(ConfigProvider.getConfig(), name, config.sandboxImage(),
                        config.sandboxUid()), clock);
                hosts.add(host);
                nodes.put(name, host.backend());
                builders.put(name, host.images());
                continue;
            }
            Optional<String> host = ConfigProvider.getConfig()
                    .getOptionalValue("dockyard.node." + name + ".docker-host", String.class)
                    .filter(h -> !h.isBlank());
            if (host.isEmpty() && name.equals(names.get(0))) {
                host = config.dockerHost();
            }
            DockerClient client = client(name, host, Duration.ofSeconds(60), 64);
            clients.put(name, client);
            SandboxHostSettings sandboxSettings = sandboxSettings(name);
            settings.put(name, sandboxSettings);
            nodes.put(name, new DockerBackend(client, workspaces(name, client, host), sandboxSettings,
                    config.egressHelperImage()));
            // a build step may print nothing for minutes (a quiet RUN, committing a layer): its own
            // client, whose read timeout is the build's
            DockerClient builds = client(name, host, config.imageBuildTimeout(), 8);
            clients.put(name + "/builds", builds);
            builders.put(name, new DockerImageBuilder(builds));
        }
    }

    /**
     * The node's confinement of sandboxes: the sandbox-wide settings, and the node's own
     * {@code runtime-class} (runc or gvisor; the engine's default runtime when unset) and
     * {@code gpus} (false, true, or how many).
     */
    private SandboxHostSettings sandboxSettings(String name) {
        String prefix = "dockyard.node." + name + ".";
        Optional<String> runtimeClass = ConfigProvider.getConfig().getOptionalValue(prefix + "runtime-class", String.class)
                .map(String::strip).filter(c -> !c.isEmpty());
        if (runtimeClass.isPresent() && !SandboxIsolation.RUNTIME_CLASSES.contains(runtimeClass.get())) {
            throw new IllegalStateException(prefix + "runtime-class: '" + runtimeClass.get() + "' is not one of "
                    + SandboxIsolation.RUNTIME_CLASSES);
        }
        String gpus = ConfigProvider.getConfig().getOptionalValue(prefix + "gpus", String.class).orElse("false").strip();
        int declared;
        if (gpus.equals("true")) {
            declared = -1;
        } else if (gpus.equals("false")) {
            declared = 0;
        } else if (gpus.matches("[0-9]{1,4}")) {
            declared = Integer.parseInt(gpus);
        } else {
            throw new IllegalStateException(prefix + "gpus: '" + gpus + "' is not true, false or a count");
        }
        return new SandboxHostSettings(config.sandboxReadOnlyRoot(), config.sandboxWritablePaths(),
                config.sandboxNofile(), runtimeClass.orElse(null), declared, config.sandboxHomeMb());
    }

    /**
     * A Docker node gives a runtime class its engine lists (docker info's runtimes), GPUs up to what
     * it declares, and networks its engine has; anything else is refused naming the node.
     */
    @Override
    public void requireIsolation(String node, SandboxIsolation isolation) {
        String name = named(node);
        SandboxHostSettings declared = settings.get(name);
        if (declared == null) {
            BackendNodes.super.requireIsolation(name, isolation);
            return;
        }
        DockerClient docker = clients.get(name);
        String runtimeClass = isolation.runtimeClass();
        if (runtimeClass != null && !runtimeClass.equals(SandboxIsolation.RUNC)) {
            String runtime = SandboxConfinement.DOCKER_RUNTIMES.get(runtimeClass);
            Map<String, ?> runtimes = engineRuntimes(name, docker);
            if (!runtimes.containsKey(runtime)) {
                throw new UnsupportedIsolationException(name, "backend node '" + name + "' does not offer runtime class '"
                        + runtimeClass + "': its engine has no '" + runtime + "' runtime (it has " + runtimes.keySet()
                        + "; docs/backends.md: gVisor)");
            }
        }
        if (isolation.gpus() != null) {
            int wanted = isolation.gpus().wanted();
            boolean capable = declared.gpus() != 0 || engineRuntimes(name, docker).containsKey("nvidia");
            if (!capable) {
                throw new UnsupportedIsolationException(name, "backend node '" + name + "' has no GPUs (set "
                        + "dockyard.node." + name + ".gpus where it has)");
            }
            if (declared.gpus() > 0 && (wanted < 0 || wanted > declared.gpus())) {
                throw new UnsupportedIsolationException(name, "backend node '" + name + "' has " + declared.gpus()
                        + " GPUs; the request asks for " + (wanted < 0 ? "all" : wanted));
            }
        }
        for (String network : isolation.networks()) {
            try {
                docker.inspectNetworkCmd().withNetworkId(network).exec();
            } catch (NotFoundException e) {
                throw new UnsupportedIsolationException(name, "backend node '" + name + "' has no network '" + network + "'");
            }
        }
    }

    /** The runtimes the node's engine offers, by name. */
    private static Map<String, ?> engineRuntimes(String node, DockerClient docker) {
        try {
            Map<String, ?> runtimes = docker.infoCmd().exec().getRuntimes();
            return runtimes == null ? Map.of() : runtimes;
        } catch (RuntimeException e) {
            throw new BackendException("could not ask node '" + node + "' which runtimes it offers: " + e.getMessage(), e);
        }
    }

    /**
     * The node's workspace volumes: bounded ext4 disks where this host can make them for that
     * engine (docs/user-guide.md, "Disk limit": which applies and why), else plain volumes; the choice is logged.
     */
    private WorkspaceVolumes workspaces(String name, DockerClient client, Optional<String> host) {
        String mode = config.diskLimit();
        Optional<String> impossible = mode.equals("none") ? Optional.of("dockyard.sandbox.disk-limit is none")
                : LoopDisks.probe(config.workspacesDir(), host.orElse(System.getenv("DOCKER_HOST")));
        if (impossible.isPresent()) {
            if (mode.equals("loop")) {
                throw new IllegalStateException("dockyard.sandbox.disk-limit=loop, but node '" + name
                        + "' cannot have bounded workspaces: " + impossible.get());
            }
            LOG.warning("Node '" + name + "': workspaces are NOT size-bounded (" + impossible.get()
                    + "); a sandbox can fill the engine's disk");
            return new WorkspaceVolumes(client, null, 0, clock);
        }
        LOG.info("Node '" + name + "': workspaces are ext4 disks of " + config.sandboxDiskMb()
                + " MB by default under " + config.workspacesDir());
        return new WorkspaceVolumes(client, new LoopDisks(config.workspacesDir()), config.sandboxDiskMb(), clock);
    }

    private static DockerClient client(String node, Optional<String> host, Duration responseTimeout, int connections) {
        DefaultDockerClientConfig.Builder builder = DefaultDockerClientConfig.createDefaultConfigBuilder();
        host.ifPresent(builder::withDockerHost);
        DefaultDockerClientConfig clientConfig = builder.build();
        ZerodepDockerHttpClient http = new ZerodepDockerHttpClient.Builder()
                .dockerHost(clientConfig.getDockerHost())
                .sslConfig(clientConfig.getSSLConfig())
                .maxConnections(connections)
                .connectionTimeout(Duration.ofSeconds(5))
                .responseTimeout(responseTimeout)
                .build();
        LOG.fine("Backend node '" + node + "': Docker endpoint " + clientConfig.getDockerHost());
        return DockerClientImpl.getInstance(clientConfig, http);
    }

    @PreDestroy
    void close() {
        clusters.forEach(KubernetesNode::close);
        hosts.forEach(CliNode::close);
        clients.values().forEach(client -> {
            try {
                client.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing a Docker client", e);
            }
        });
    }

    @Override
    public String defaultNode() {
        return names().get(0);
    }

    @Override
    public List<String> names() {
        return List.copyOf(nodes.keySet());
    }

    @Override
    public RuntimeBackend on(String node) {
        return of(nodes, node);
    }

    @Override
    public ExecutorServer executorServer(String node) {
        return of(executorServers, node);
    }

    @Override
    public RuntimeImageBuilder images(String node) {
        return of(builders, node);
    }

    /** A node's entry of one of the per-node maps: the default node's for null, refused for an unknown name. */
    private <T> T of(Map<String, T> perNode, String node) {
        T value = perNode.get(named(node));
        if (value == null) {
            throw new UnknownNodeException(node, names());
        }
        return value;
    }
}
