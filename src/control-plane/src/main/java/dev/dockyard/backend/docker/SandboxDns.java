package dev.dockyard.backend.docker;

import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import dev.dockyard.backend.BackendException;
import java.util.List;

/**
 * The resolver of a sandbox on a network of its own: one its own packet filter refuses, so that
 * DNS is no way out of the egress policy.
 *
 * <p>Why it is needed. On a user-defined network a container's {@code /etc/resolv.conf} names
 * Docker's embedded DNS server (127.0.0.11), run by the engine inside the container's network
 * namespace; what it cannot answer itself it forwards to the external servers. When the container
 * was given none, those are the host's ({@code /etc/resolv.conf}), and a loopback address there
 * (systemd-resolved's 127.0.0.53) is queried <em>from the host's network namespace</em>, where no
 * rule of the sandbox applies: a DNS channel out even in {@code none}. Docker documents the other
 * case (docs.docker.com, "Networking overview", DNS services, {@code --dns}): "DNS requests will
 * be forwarded from the container's network namespace"; libnetwork marks only servers taken from
 * the host's file as host-loopback ({@code setupDNS}: "--dns 127.0.0.x config refers to the
 * loopback in the container namespace"), and its resolver dials every other server inside the
 * container's namespace.
 *
 * <p>So a sandbox of any mode but open gets one server, the gateway of its own network (the host's
 * address on its bridge): the engine forwards from the sandbox's namespace, the query enters the
 * host through the sandbox's bridge, and the rules of {@link EgressRules} refuse it there (UDP
 * with an ICMP error, at once). Names the policy needs were resolved when the runtime was asked
 * for; {@code /etc/hosts} entries (the container's own, {@code --add-host}) are answered without
 * DNS and keep working. No search domain (the host's would be tried in turn, and name the host's
 * networks) and one try of one second: a lookup fails within seconds, also on engines (20.10)
 * whose embedded server sends no answer when every forward failed.
 */
final class SandboxDns {

    /** {@code --dns-search .}: no search domains at all, not the host's. */
    static final String NO_SEARCH = ".";
    /** One try of one second: nothing can answer, so nothing is gained by waiting. */
    static final List<String> OPTIONS = List.of("timeout:1", "attempts:1");

    private SandboxDns() {
    }

    /** Gives the container the network's gateway as its only DNS server, with no search and one short try. */
    static void refuseThroughGateway(HostConfig host, String gateway) {
        host.withDns(gateway).withDnsSearch(NO_SEARCH).withDnsOptions(OPTIONS);
    }

    /**
     * The IPv4 gateway of a sandbox network as the engine's inspect shows it; an engine that shows
     * only the subnet gives its first address (what Docker's default address management assigns).
     */
    static String gatewayOf(Network network) {
        Network.Ipam ipam = network.getIpam();
        List<Network.Ipam.Config> configs = ipam == null || ipam.getConfig() == null ? List.of() : ipam.getConfig();
        for (Network.Ipam.Config config : configs) {
            String gateway = config.getGateway();
            if (gateway != null && !gateway.isBlank() && !gateway.contains(":")) {
                return gateway.contains("/") ? gateway.substring(0, gateway.indexOf('/')) : gateway;
            }
        }
        for (Network.Ipam.Config config : configs) {
            String first = firstAddress(config.getSubnet());
            if (first != null) {
                return first;
            }
        }
        throw new BackendException("the engine shows no IPv4 gateway for network " + network.getName()
                + ": its sandbox would have no refused resolver, and DNS could leave the policy");
    }

    /** The first host address of an IPv4 subnet {@code a.b.c.d/n}, or null when it is not one. */
    static String firstAddress(String subnet) {
        if (subnet == null || !subnet.matches("\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}")) {
            return null;
        }
        String[] parts = subnet.split("/");
        int prefix = Integer.parseInt(parts[1]);
        if (prefix > 30) {
            return null;
        }
        long address = 0;
        for (String octet : parts[0].split("\\.")) {
            int value = Integer.parseInt(octet);
            if (value > 255) {
                return null;
            }
            address = address << 8 | value;
        }
        long mask = prefix == 0 ? 0 : 0xFFFFFFFFL << (32 - prefix) & 0xFFFFFFFFL;
        long first = (address & mask) + 1;
        return (first >> 24 & 255) + "." + (first >> 16 & 255) + "." + (first >> 8 & 255) + "." + (first & 255);
    }
}
