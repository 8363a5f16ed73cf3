package dev.dockyard.proxy;

import dev.dockyard.http.Header;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1): a proxy consumes them
 * and never passes them on. Besides the fixed list, every header the {@code Connection} header
 * names is one of them for that message. {@code Host} is here too: the proxy's HTTP client names
 * the sandbox itself.
 */
public final class HopByHop {

    private static final Set<String> FIXED = Set.of("connection", "keep-alive", "te", "trailer", "trailers",
            "transfer-encoding", "upgrade", "host");

    private HopByHop() {
    }

    /** Whether this header is hop-by-hop in any message. */
    public static boolean isFixed(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return FIXED.contains(lower) || lower.startsWith("proxy-");
    }

    /** The header names (lower case) that are hop-by-hop in a message with these headers. */
    public static Set<String> of(List<Header> headers) {
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (Header h : headers) {
            if (h.is("Connection")) {
                for (String token : h.value().split(",")) {
                    String t = token.trim();
                    if (!t.isEmpty()) {
                        names.add(t.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return names;
    }

    /** The headers less every hop-by-hop one. */
    public static List<Header> strip(List<Header> headers) {
        Set<String> named = of(headers);
        return headers.stream().filter(h -> !isFixed(h.name()) && !named.contains(h.name())).toList();
    }
}
