package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.NodeFactory;
import dev.dockyard.backend.NodeType;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Opens a Docker engine as a node (the default {@code type}): {@code dockyard.node.<name>.docker-host}
 * says where it answers (for the first node, {@code dockyard.docker.host}, then DOCKER_HOST or the
 * local socket).
 *
 * <p>Clients use the zero-dependency transport (no Jersey, which would clash with Liberty's own)
 * and a connection pool sized for concurrent provisioning. They connect lazily, so an engine that
 * is down makes its own node's calls fail, not the control plane's start.
 */
@ApplicationScoped
public class DockerNodeFactory implements NodeFactory {

    private static final Logger LOG = Logger.getLogger(DockerNodeFactory.class.getName());

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Override
    public NodeType type() {
        return NodeType.DOCKER;
    }

    @Override
    public BackendNode open(String name, boolean first) {
        Optional<String> host = ConfigProvider.getConfig()
                .getOptionalValue("dockyard.node." + name + ".docker-host", String.class)
                .filter(h -> !h.isBlank());
        if (host.isEmpty() && first) {
            host = config.dockerHost();
        }
        DockerClient client = client(name, host, Duration.ofSeconds(60), 64);
        SandboxHostSettings sandboxSettings = sandboxSettings(name);
        DockerBackend backend = new DockerBackend(client, workspaces(name, client, host), sandboxSettings,
                config.egressHelperImage());
        // a build step may print nothing for minutes (a quiet RUN, committing a layer): its own
        // client, whose read timeout is the build's
        DockerClient builds = client(name, host, config.imageBuildTimeout(), 8);
        return new DockerNode(client, builds, sandboxSettings, backend);
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

    /** A client of the engine at {@code host} (else DOCKER_HOST or the local socket); also the contract suite's (it/). */
    static DockerClient client(String node, Optional<String> host, Duration responseTimeout, int connections) {
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
        return DockerClientImpl.getInstance(clientConfig, new AnsweringEngine(http, node, clientConfig.getDockerHost().toString()));
    }
}
