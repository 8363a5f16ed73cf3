package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.SandboxSpec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The network side of a sandbox's {@link EgressPolicy} on one engine. A sandbox of any mode but
 * open gets a bridge network of its own ({@code dockyard-net-<sandbox>}, labelled like its other
 * resources, its policy in {@link Labels#EGRESS}), whose bridge interface Dockyard names so that
 * the {@link EgressRules} the {@link EgressHelper} installs on the host apply to it alone. A bridge
 * and not Docker's {@code none} or internal networks: the control plane reaches the executor through
 * a port published on 127.0.0.1, which those cannot carry. The network and its rules go with the
 * sandbox; the reconciler's sweep removes those a lost sandbox left. Its DNS server is its network's
 * gateway, which those rules refuse ({@link SandboxDns}): names were resolved when it was asked for.
 *
 * <p>Open sandboxes stay on the engine's default bridge, whose link-local refusal is installed once
 * per node (and again when it could not be).
 */
final class SandboxNetworks {

    private static final Logger LOG = Logger.getLogger(SandboxNetworks.class.getName());

    static final String PREFIX = "dockyard-net-";
    /** The engine's option that names a bridge network's interface. */
    static final String BRIDGE_NAME = "com.docker.network.bridge.name";

    private final DockerClient docker;
    private final EgressHelper helper;
    private volatile boolean openRulesInstalled;

    SandboxNetworks(DockerClient docker, EgressHelper helper) {
        this.docker = docker;
        this.helper = helper;
    }

    static String networkOf(String sandboxName) {
        return PREFIX + sandboxName;
    }

    /**
     * Puts the sandbox on the network of its policy: creates its own with the rules installed and
     * the network's gateway as its only, refused, DNS server ({@link SandboxDns}; returns its name)
     * or, for an open one, makes sure of the default bridge's rule (returns null).
     */
    String attach(SandboxSpec spec, HostConfig host) {
        EgressPolicy policy = spec.egress();
        if (!policy.ownNetwork()) {
            ensureOpenRules();
            return null;
        }
        String network = networkOf(spec.name());
        String bridge = EgressRules.bridgeOf(spec.name());
        Map<String, String> labels = new HashMap<>(spec.labels());
        labels.put(Labels.EGRESS, policy.encode());
        try {
            docker.createNetworkCmd().withName(network).withDriver("bridge").withLabels(labels)
                    .withOptions(Map.of(BRIDGE_NAME, bridge)).withCheckDuplicate(true).exec();
        } catch (ConflictException e) {
            // left by an attempt of this same sandbox that did not finish: its rules are made again below
            LOG.info("Reusing network " + network + " of an earlier attempt");
        } catch (DockerException e) {
            throw new BackendException("Docker could not create the sandbox's network " + network + ": "
                    + e.getMessage(), e);
        }
        String gateway;
        try {
            gateway = SandboxDns.gatewayOf(docker.inspectNetworkCmd().withNetworkId(network).exec());
            helper.run(EgressRules.apply(bridge, policy));
        } catch (DockerException e) {
            removeNetworkQuietly(network);
            throw new BackendException("Docker could not inspect the sandbox's network " + network + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            removeNetworkQuietly(network);
            throw e;
        }
        host.withNetworkMode(network);
        SandboxDns.refuseThroughGateway(host, gateway);
        return network;
    }

    /** Installs the rules of the sandbox's own network again (they are lost when the host reboots). */
    void reapply(String sandboxName) {
        Network network = inspect(networkOf(sandboxName));
        if (network == null) {
            ensureOpenRules();
            return;
        }
        String policy = network.getLabels() == null ? null : network.getLabels().get(Labels.EGRESS);
        helper.run(EgressRules.apply(bridgeOf(network, sandboxName), EgressPolicy.decode(policy)));
    }

    /** The rules the host has for the sandbox's bridge ({@code iptables -S} lines), for checks. */
    String listRules(String sandboxName) {
        return helper.run(EgressRules.list(EgressRules.bridgeOf(sandboxName)));
    }

    /**
     * Removes the sandbox's network and its rules, if it has them (call once the container is gone).
     * The network stays when its rules could not be removed, so that the sweep tries again.
     */
    void remove(String sandboxName) {
        Network network = inspect(networkOf(sandboxName));
        if (network == null) {
            return;
        }
        try {
            helper.run(EgressRules.remove(bridgeOf(network, sandboxName)));
        } catch (RuntimeException e) {
            LOG.warning("Could not remove the egress rules of " + sandboxName + " (the sweep tries again): "
                    + e.getMessage());
            return;
        }
        removeNetworkQuietly(network.getName());
    }

    /**
     * Removes this control plane's sandbox networks older than {@code cutoff} whose sandbox is gone,
     * with their rules, and helper containers left behind; returns how many networks went.
     */
    int sweep(String controlPlane, Instant cutoff) {
        int removed = 0;
        List<Network> networks = docker.listNetworksCmd()
                .withFilter("label", List.of(Labels.MANAGED + "=true", Labels.CONTROL_PLANE + "=" + controlPlane,
                        Labels.EGRESS))
                .exec();
        for (Network network : networks) {
            String name = network.getName();
            if (!name.startsWith(PREFIX) || network.getCreated() == null
                    || network.getCreated().toInstant().isAfter(cutoff)) {
                continue;
            }
            String sandbox = name.substring(PREFIX.length());
            try {
                docker.inspectContainerCmd(sandbox).exec();
                continue;
            } catch (NotFoundException e) {
                // its sandbox is gone: an orphan
            }
            remove(sandbox);
            if (inspect(name) == null) {
                removed++;
                LOG.info("Removed orphan sandbox network " + name);
            }
        }
        for (Container c : docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(Labels.EGRESS_HELPER, "true")).withStatusFilter(List.of("exited", "dead"))
                .exec()) {
            if (!leftBehind(c.getCreated(), cutoff)) {
                continue;
            }
            try {
                docker.removeContainerCmd(c.getId()).withForce(true).exec();
            } catch (DockerException e) {
                // gone already, or being removed
            }
        }
        return removed;
    }

    /**
     * Whether an exited helper container is one its runner left behind (a control plane that died
     * while it ran), not one whose runner is still reading its output: every control plane on the
     * engine sweeps, and a helper removed between its exit and the read of its log failed that
     * runner's sandbox (measured: "No such container" at a provision's create step while another
     * control plane swept). Its runner removes it within {@link EgressHelper#TIMEOUT_SECONDS} and
     * a few seconds of logs; twice that before the cutoff, it is nobody's.
     */
    static boolean leftBehind(Long createdEpochSeconds, Instant cutoff) {
        return createdEpochSeconds != null && Instant.ofEpochSecond(createdEpochSeconds)
                .isBefore(cutoff.minusSeconds(2L * EgressHelper.TIMEOUT_SECONDS));
    }

    /**
     * The default bridge's link-local refusal, at the control plane's start: in place before the
     * node's first open sandbox, which would otherwise wait for the helper's run.
     */
    void prepare() {
        ensureOpenRules();
    }

    /** The default bridge's link-local refusal: once per node, again after a failure (logged, not fatal). */
    private void ensureOpenRules() {
        if (openRulesInstalled) {
            return;
        }
        try {
            Network bridge = docker.inspectNetworkCmd().withNetworkId("bridge").exec();
            String name = bridge.getOptions() == null ? null : bridge.getOptions().get(BRIDGE_NAME);
            helper.run(EgressRules.applyOpen(name == null ? "docker0" : name));
            openRulesInstalled = true;
        } catch (RuntimeException e) {
            // an open sandbox keeps today's behaviour rather than failing: said loudly, tried again next time
            LOG.warning("Could not refuse the link-local range on the default bridge of this node (open sandboxes "
                    + "can reach it until this works): " + e.getMessage());
        }
    }

    private static String bridgeOf(Network network, String sandboxName) {
        String name = network.getOptions() == null ? null : network.getOptions().get(BRIDGE_NAME);
        return name != null ? name : EgressRules.bridgeOf(sandboxName);
    }

    private Network inspect(String network) {
        try {
            return docker.inspectNetworkCmd().withNetworkId(network).exec();
        } catch (NotFoundException e) {
            return null;
        }
    }

    private void removeNetworkQuietly(String network) {
        try {
            docker.removeNetworkCmd(network).exec();
        } catch (NotFoundException e) {
            // gone already
        } catch (DockerException e) {
            LOG.warning("Could not remove network " + network + " (the sweep tries again): " + e.getMessage());
        }
    }
}
