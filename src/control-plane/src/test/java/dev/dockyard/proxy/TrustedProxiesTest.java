package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** dockyard.proxy.trusted-proxies: whose forwarding headers reach sandboxes (issue 26, item 10). */
class TrustedProxiesTest {

    @Test
    void shouldTrustNoPeerByDefault() {
        assertFalse(TrustedProxies.NONE.trusts("127.0.0.1"));
        assertFalse(TrustedProxies.of(List.of()).trusts("10.0.0.5"));
        assertFalse(TrustedProxies.of(List.of(" ", "")).trusts("10.0.0.5"));
    }

    @Test
    void shouldTrustListedAddressesAndBlocks() {
        TrustedProxies trusted = TrustedProxies.of(List.of("10.0.0.5", " 192.168.4.0/24", "fd00::/8", "[::1]"));
        assertTrue(trusted.trusts("10.0.0.5"));
        assertFalse(trusted.trusts("10.0.0.6"));
        assertTrue(trusted.trusts("192.168.4.200"));
        assertFalse(trusted.trusts("192.168.5.1"));
        assertTrue(trusted.trusts("fd12:3456::1"));
        assertTrue(trusted.trusts("0:0:0:0:0:0:0:1"));
        assertFalse(trusted.trusts("fe80::1"));
        assertFalse(trusted.trusts("not-an-address"), "a peer is an address, never a name to resolve");
        assertFalse(trusted.trusts(null));
        assertTrue(TrustedProxies.of(List.of("0.0.0.0/0")).trusts("203.0.113.9"));
        assertFalse(TrustedProxies.of(List.of("0.0.0.0/0")).trusts("::1"), "an IPv4 block holds no IPv6 peer");
    }

    @Test
    void shouldRefuseASettingThatIsNoAddress() {
        for (String entry : List.of("proxy.example", "10.0.0.0/33", "10.0.0.0/x", "fd00::/129", "10.0.0")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TrustedProxies.of(List.of(entry)), entry);
            assertTrue(e.getMessage().contains("dockyard.proxy.trusted-proxies"), e.getMessage());
        }
    }
}
