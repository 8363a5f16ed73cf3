package dev.dockyard.credentials;

import java.net.InetAddress;
import java.util.Arrays;

/**
 * Which addresses are not on the public internet: Java's {@link InetAddress} predicates cover
 * loopback, link-local, the RFC 1918 blocks and multicast, and miss the rest of the special-purpose
 * registry (RFC 6890): 0.0.0.0/8, shared address space, the documentation and benchmarking blocks,
 * 240.0.0.0/4, unique-local IPv6. An IPv6 address that carries an IPv4 one (IPv4-mapped,
 * IPv4-compatible {@code ::a.b.c.d}, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}) reaches
 * that IPv4 address through a translator or the host's own stack, so it is judged by the IPv4
 * address it carries.
 */
final class PublicAddresses {

    private PublicAddresses() {
    }

    /** Whether the address is anything but a public unicast one. */
    static boolean internal(InetAddress address) {
        byte[] raw = address.getAddress();
        if (raw.length == 4) {
            return internalV4(raw);
        }
        byte[] embedded = embeddedV4(raw);
        return embedded != null ? internalV4(embedded) : internalV6(address, raw);
    }

    private static boolean internalV4(byte[] b) {
        int a = b[0] & 0xff;
        int o2 = b[1] & 0xff;
        int o3 = b[2] & 0xff;
        return a == 0                                   // 0.0.0.0/8, "this network"
                || a == 10                              // private
                || a == 127                             // loopback
                || (a == 100 && (o2 & 0xc0) == 64)      // 100.64.0.0/10, shared (carrier-grade NAT)
                || (a == 169 && o2 == 254)              // link-local, cloud metadata
                || (a == 172 && (o2 & 0xf0) == 16)      // private
                || (a == 192 && o2 == 0 && o3 == 0)     // IETF protocol assignments
                || (a == 192 && o2 == 0 && o3 == 2)     // TEST-NET-1
                || (a == 192 && o2 == 88 && o3 == 99)   // 6to4 relay anycast
                || (a == 192 && o2 == 168)              // private
                || (a == 198 && (o2 & 0xfe) == 18)      // 198.18.0.0/15, benchmarking
                || (a == 198 && o2 == 51 && o3 == 100)  // TEST-NET-2
                || (a == 203 && o2 == 0 && o3 == 113)   // TEST-NET-3
                || a >= 224;                            // multicast, 240.0.0.0/4 reserved, broadcast
    }

    private static boolean internalV6(InetAddress address, byte[] b) {
        int first = ((b[0] & 0xff) << 8) | (b[1] & 0xff);
        int second = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        int third = ((b[4] & 0xff) << 8) | (b[5] & 0xff);
        return address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()
                || (b[0] & 0xfe) == 0xfc                               // fc00::/7, unique local
                || (first == 0x0064 && second == 0xff9b && third == 1) // 64:ff9b:1::/48, local-use NAT64
                || (first == 0x2001 && second == 0)                    // Teredo: a tunnel to an IPv4 host
                || (first == 0x2001 && second == 0x0db8)               // documentation
                || (first == 0x0100 && second == 0 && third == 0 && b[6] == 0 && b[7] == 0); // 100::/64, discard
    }

    /** The IPv4 address an IPv6 one carries, or null when it carries none. */
    private static byte[] embeddedV4(byte[] b) {
        boolean zeros80 = allZero(b, 0, 10);
        if (zeros80 && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            return Arrays.copyOfRange(b, 12, 16); // ::ffff:a.b.c.d, IPv4-mapped
        }
        if (zeros80 && b[10] == 0 && b[11] == 0) {
            return Arrays.copyOfRange(b, 12, 16); // ::a.b.c.d, IPv4-compatible (:: and ::1 are 0.0.0.x)
        }
        if (b[0] == 0 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                && allZero(b, 4, 12)) {
            return Arrays.copyOfRange(b, 12, 16); // 64:ff9b::a.b.c.d, NAT64
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            return Arrays.copyOfRange(b, 2, 6);   // 2002:aabb:ccdd::/48, 6to4
        }
        return null;
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
