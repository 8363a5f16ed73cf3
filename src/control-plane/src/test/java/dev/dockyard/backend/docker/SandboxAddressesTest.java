package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SandboxAddressesTest {

    @Test
    void shouldGiveEachSandboxALoopbackAddressOfItsOwnOutsideTheSharedOne() throws Exception {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String name = "dockyard-rt-" + String.format("%016x", i * 0x9E3779B97F4A7C15L);
            String address = SandboxAddresses.of(name);
            assertEquals(address, SandboxAddresses.of(name), "the same name, the same address");
            assertTrue(InetAddress.getByName(address).isLoopbackAddress(), address);
            String[] octets = address.split("\\.");
            int second = Integer.parseInt(octets[1]);
            int fourth = Integer.parseInt(octets[3]);
            assertTrue(second >= 1 && second <= 254, "never 127.0.x.x, where 127.0.0.1 is: " + address);
            assertTrue(fourth >= 1 && fourth <= 254, address);
            seen.add(address);
        }
        // 16.5 million addresses: a thousand sandboxes practically never share one
        assertTrue(seen.size() >= 999, seen.size() + " distinct");
        assertNotEquals(SandboxAddresses.of("dockyard-rt-a"), SandboxAddresses.of("dockyard-rt-b"));
    }

    @Test
    void shouldReadAnEngineReportedWildcardOrBlankAsTheSharedAddress() {
        assertEquals("127.0.0.1", SandboxAddresses.host(""));
        assertEquals("127.0.0.1", SandboxAddresses.host(null));
        assertEquals("127.0.0.1", SandboxAddresses.host("0.0.0.0"));
        assertEquals("127.9.8.7", SandboxAddresses.host("127.9.8.7"));
    }
}
