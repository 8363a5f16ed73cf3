package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.WaitContainerResultCallback;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an {@link EgressRules} script on the engine's host through the engine itself, so that it
 * works the same for a remote node: a short-lived container of the helper image (the sandbox base
 * with iptables, built by {@code docker/build-egress-helper-image.sh}) in the host's network
 * namespace with {@code NET_ADMIN} and {@code NET_RAW} and nothing else, removed once it exits.
 * Sandboxes never get these capabilities: the helper is the only thing that changes the rules.
 */
final class EgressHelper {

    /** How long one script may run: a few iptables calls, or the engine is in trouble. */
    static final int TIMEOUT_SECONDS = 30;

    private final DockerClient docker;
    private final String image;

    EgressHelper(DockerClient docker, String image) {
        this.docker = docker;
        this.image = image;
    }

    String image() {
        return image;
    }

    /** Runs the script; returns its output, or throws with it when it fails. */
    String run(String script) {
        String id;
        try {
            id = docker.createContainerCmd(image)
                    .withEntrypoint("sh", "-c", script)
                    .withUser("0")
                    .withLabels(Map.of(Labels.EGRESS_HELPER, "true"))
                    .withHostConfig(HostConfig.newHostConfig()
                            .withNetworkMode("host")
                            .withCapDrop(Capability.ALL)
                            .withCapAdd(Capability.NET_ADMIN, Capability.NET_RAW)
                            .withSecurityOpts(List.of("no-new-privileges")))
                    .exec().getId();
        } catch (NotFoundException e) {
            throw new BackendException("the egress helper image '" + image + "' is not on this node: build it with "
                    + "docker/build-egress-helper-image.sh (MP Config dockyard.sandbox.network.helper-image)", e);
        } catch (DockerException e) {
            throw new BackendException("Docker refused to create the egress helper: " + e.getMessage(), e);
        }
        try {
            docker.startContainerCmd(id).exec();
            Integer code = docker.waitContainerCmd(id).exec(new WaitContainerResultCallback())
                    .awaitStatusCode(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            LogCollector logs = new LogCollector();
            docker.logContainerCmd(id).withStdOut(true).withStdErr(true).exec(logs)
                    .awaitCompletion(5, TimeUnit.SECONDS);
            if (code == null || code != 0) {
                throw new BackendException("the egress helper failed (exit " + code + "): " + logs.text());
            }
            return logs.text();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while the egress helper ran", e);
        } catch (DockerException e) {
            throw new BackendException("the egress helper could not run: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e instanceof BackendException) {
                throw e;
            }
            // the wait timed out, or the client failed
            throw new BackendException("the egress helper did not finish: " + e.getMessage(), e);
        } finally {
            try {
                docker.removeContainerCmd(id).withForce(true).exec();
            } catch (DockerException e) {
                // labelled: removed by the next sweep of helpers
            }
        }
    }
}
