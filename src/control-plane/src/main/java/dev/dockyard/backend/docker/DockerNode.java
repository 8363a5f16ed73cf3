package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.UnsupportedIsolationException;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Docker engine as a node: the backend on one client, the image builder on another (a build step
 * may print nothing for minutes, so its client's read timeout is the build's), and the node's own
 * confinement settings, against which a request's isolation is checked.
 */
final class DockerNode implements BackendNode {

    private static final Logger LOG = Logger.getLogger(DockerNode.class.getName());

    private final DockerClient docker;
    private final DockerClient builds;
    private final SandboxHostSettings declared;
    private final DockerBackend backend;
    private final DockerImageBuilder images;

    DockerNode(DockerClient docker, DockerClient builds, SandboxHostSettings declared, DockerBackend backend) {
        this.docker = docker;
        this.builds = builds;
        this.declared = declared;
        this.backend = backend;
        this.images = new DockerImageBuilder(builds);
    }

    @Override
    public DockerBackend backend() {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images() {
        return images;
    }

    /**
     * The node's {@code runtime-class}, else runc: Docker's own default runtime, which Dockyard's
     * scripts never change (an engine whose daemon.json names another default says so in the
     * node's {@code runtime-class}).
     */
    @Override
    public Optional<String> defaultRuntimeClass() {
        return Optional.of(declared.defaultRuntimeClass() != null ? declared.defaultRuntimeClass()
                : SandboxIsolation.RUNC);
    }

    /**
     * A Docker node gives a runtime class its engine lists (docker info's runtimes), GPUs up to what
     * it declares, and networks its engine has; anything else is refused naming the node.
     */
    @Override
    public void requireIsolation(String name, SandboxIsolation isolation) {
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
        } catch (EngineUnreachableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BackendException("could not ask node '" + node + "' which runtimes it offers: " + e.getMessage(), e);
        }
    }

    /** Closes both clients. */
    @Override
    public void close() {
        for (DockerClient client : new DockerClient[] {docker, builds}) {
            try {
                client.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing a Docker client", e);
            }
        }
    }
}
