package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import dev.dockyard.backend.BackendException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SandboxDnsTest {

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** A network as the engine's inspect answers it (the IPAM part of Docker 20.10's answer). */
    private static Network network(String ipamConfig) throws Exception {
        return JSON.readValue("{\"Name\": \"dockyard-net-dockyard-r1\", \"Driver\": \"bridge\", \"IPAM\": "
                + "{\"Driver\": \"default\", \"Options\": null, \"Config\": " + ipamConfig + "}}", Network.class);
    }

    @Test
    void shouldUseTheGatewayTheEngineShows() throws Exception {
        assertEquals("172.19.0.1", SandboxDns.gatewayOf(network(
                "[{\"Subnet\": \"172.19.0.0/16\", \"Gateway\": \"172.19.0.1\"}]")));
    }

    @Test
    void shouldSkipAnIpv6GatewayAndAPrefix() throws Exception {
        assertEquals("10.144.3.1", SandboxDns.gatewayOf(network("[{\"Subnet\": \"fd00::/64\", \"Gateway\": \"fd00::1\"},"
                + " {\"Subnet\": \"10.144.3.0/24\", \"Gateway\": \"10.144.3.1/24\"}]")));
    }

    @Test
    void shouldTakeTheSubnetsFirstAddressWhenNoGatewayIsShown() throws Exception {
        assertEquals("10.144.3.1", SandboxDns.gatewayOf(network("[{\"Subnet\": \"10.144.3.0/24\"}]")));
        assertEquals("10.144.0.1", SandboxDns.firstAddress("10.144.3.7/16"));
        assertNull(SandboxDns.firstAddress("fd00::/64"));
        assertNull(SandboxDns.firstAddress("10.0.0.0/31"));
        assertNull(SandboxDns.firstAddress("300.0.0.0/8"));
    }

    @Test
    void shouldRefuseANetworkWithoutAnIpv4Gateway() throws Exception {
        Network v6only = network("[{\"Subnet\": \"fd00::/64\", \"Gateway\": \"fd00::1\"}]");
        BackendException e = assertThrows(BackendException.class, () -> SandboxDns.gatewayOf(v6only));
        assertTrue(e.getMessage().contains("dockyard-net-dockyard-r1"), e.getMessage());
        assertThrows(BackendException.class, () -> SandboxDns.gatewayOf(network("[]")));
        assertThrows(BackendException.class, () -> SandboxDns.gatewayOf(network("null")));
    }

    @Test
    void shouldGiveTheGatewayAsTheOnlyServerWithoutSearchAndOneShortTry() {
        HostConfig host = HostConfig.newHostConfig().withExtraHosts(SandboxHardening.WILDCARD_HOST);
        SandboxDns.refuseThroughGateway(host, "172.19.0.1");
        assertArrayEquals(new String[] {"172.19.0.1"}, host.getDns());
        assertArrayEquals(new String[] {"."}, host.getDnsSearch());
        assertEquals(List.of("timeout:1", "attempts:1"), host.getDnsOptions());
        assertArrayEquals(new String[] {SandboxHardening.WILDCARD_HOST}, host.getExtraHosts(),
                "/etc/hosts entries are kept: they are answered without DNS");
    }
}
