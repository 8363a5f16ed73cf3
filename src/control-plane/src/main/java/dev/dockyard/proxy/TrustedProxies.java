package dev.dockyard.proxy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The peers whose {@code Forwarded} and {@code X-Forwarded-*} headers the proxy passes on to
 * sandboxes ({@code dockyard.proxy.trusted-proxies}: addresses and CIDR blocks, e.g.
 * {@code 10.0.0.5, 192.168.0.0/24, fd00::/8}). From any other peer those headers are the client's
 * own words, and a service that believes them (for its logs, rate limits, links or redirects)
 * believes whatever the client wrote; the proxy drops them and says only what it saw. Entries are
 * address literals: a name is refused rather than resolved.
 */
final class TrustedProxies {

    /** No peer is trusted. */
    static final TrustedProxies NONE = new TrustedProxies(List.of());

    private record Block(byte[] network, int bits) {
    }

    private final List<Block> blocks;

    private TrustedProxies(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    /**
     * The trusted peers of the setting's entries; blank entries are skipped.
     *
     * @throws IllegalArgumentException naming an entry that is no address or block
     */
    static TrustedProxies of(List<String> entries) {
        List<Block> blocks = new ArrayList<>();
        for (String raw : entries) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                continue;
            }
            int slash = entry.indexOf('/');
            byte[] address = literal(slash < 0 ? entry : entry.substring(0, slash));
            int bits = address.length * 8;
            if (address.length == 0) {
                throw new IllegalArgumentException("dockyard.proxy.trusted-proxies: not an address: " + entry);
            }
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    bits = -1;
                }
                if (bits < 0 || bits > address.length * 8) {
                    throw new IllegalArgumentException("dockyard.proxy.trusted-proxies: not a prefix length: " + entry);
                }
            }
            blocks.add(new Block(address, bits));
        }
        return new TrustedProxies(blocks);
    }

    /** Whether the peer at this address (as the servlet container gives it) is a trusted proxy. */
    boolean trusts(String peerAddress) {
        if (blocks.isEmpty() || peerAddress == null) {
            return false;
        }
        byte[] peer = literal(peerAddress);
        for (Block block : blocks) {
            if (block.network().length == peer.length && matches(block, peer)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(Block block, byte[] peer) {
        for (int bit = 0; bit < block.bits(); bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((block.network()[bit / 8] & mask) != (peer[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of an IPv4 or IPv6 literal, or none: a host name is never resolved here. */
    private static byte[] literal(String text) {
        String t = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        boolean v4 = t.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = t.contains(":") && t.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) {
            return new byte[0];
        }
        try {
            return InetAddress.getByName(t).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return new byte[0];
        }
    }
}
