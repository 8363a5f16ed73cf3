package dev.dockyard.api;

import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.config.DockyardConfig;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a provision body's {@code sandbox.network} (a mode: none, internal, allowlist, open; the
 * MP Config default when absent) and {@code sandbox.egress} (the allowlist: {@code "host:port"}
 * strings) into an {@link EgressPolicy}. Names are resolved here, once, when the runtime is asked
 * for: the rules hold addresses, so a name that later moves is not followed (docs/user-guide.md: Egress policy, threat model).
 */
public final class EgressRequestReader {

    /** A DNS name or an IPv4 address, then a port. */
    private static final Pattern ENTRY = Pattern.compile("^([A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9-]{1,63})*)"
            + ":([0-9]{1,5})$");
    /** Addresses one name may add: a name behind hundreds of addresses is not a destination. */
    static final int MAX_ADDRESSES_PER_NAME = 8;

    /** Resolves a name to its IPv4 addresses (the engine's networks are IPv4). */
    public interface Resolver {
        List<String> ipv4(String host) throws UnknownHostException;
    }

    /** The system's resolver. */
    public static final Resolver SYSTEM = host -> {
        List<String> addresses = new ArrayList<>();
        for (InetAddress a : InetAddress.getAllByName(host)) {
            if (a instanceof Inet4Address) {
                addresses.add(a.getHostAddress());
            }
        }
        return addresses;
    };

    private EgressRequestReader() {
    }

    /**
     * The policy {@code sandbox} asks for ({@code network}, {@code egress}; the runtime API's start
     * body carries them at its top level), else the configured default; a 4xx problem when it asks
     * for what is malformed or not allowed here.
     */
    public static EgressPolicy read(JsonObject sandbox, DockyardConfig config, Resolver resolver) {
        JsonValue modeValue = sandbox.get("network");
        String modeName;
        if (modeValue == null || modeValue.getValueType() == JsonValue.ValueType.NULL) {
            modeName = config.sandboxNetwork();
        } else if (modeValue instanceof JsonString s) {
            modeName = s.getString();
            if (!config.sandboxNetworkModes().contains(modeName)) {
                if (List.of("none", "internal", "allowlist", "open").contains(modeName)) {
                    throw Problem.of(Problem.Kind.FORBIDDEN, "sandbox.network '" + modeName + "' is not allowed on "
                            + "this server; allowed: " + config.sandboxNetworkModes()).toException();
                }
                throw invalid("sandbox.network must be one of none, internal, allowlist, open");
            }
        } else {
            throw invalid("sandbox.network must be a string: none, internal, allowlist or open");
        }
        EgressPolicy.Mode mode;
        try {
            mode = EgressPolicy.Mode.of(modeName);
        } catch (IllegalArgumentException e) {
            throw invalid("sandbox.network: " + e.getMessage());
        }
        List<String> entries = entries(sandbox.get("egress"), config.maxEgressDestinations());
        return switch (mode) {
            case NONE, OPEN -> {
                if (!entries.isEmpty()) {
                    throw invalid("sandbox.egress applies to sandbox.network allowlist only, not " + modeName);
                }
                yield mode == EgressPolicy.Mode.NONE ? new EgressPolicy(mode, List.of()) : EgressPolicy.OPEN;
            }
            case INTERNAL -> {
                if (!entries.isEmpty()) {
                    throw invalid("sandbox.egress applies to sandbox.network allowlist only: the internal mode's "
                            + "services are the admin's (dockyard.sandbox.network.internal-services)");
                }
                yield new EgressPolicy(mode, resolve(config.internalServices(), resolver, "the internal services"));
            }
            case ALLOWLIST -> {
                if (entries.isEmpty()) {
                    throw invalid("sandbox.network allowlist needs sandbox.egress: a list of \"host:port\"");
                }
                yield new EgressPolicy(mode, resolve(entries, resolver, "sandbox.egress"));
            }
        };
    }

    /** The {@code sandbox.egress} strings, checked for form and count. */
    private static List<String> entries(JsonValue value, int max) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY) {
            throw invalid("sandbox.egress must be an array of \"host:port\" strings");
        }
        if (value.asJsonArray().size() > max) {
            throw invalid("sandbox.egress may name at most " + max + " destinations");
        }
        List<String> entries = new ArrayList<>();
        for (JsonValue v : value.asJsonArray()) {
            if (!(v instanceof JsonString s)) {
                throw invalid("sandbox.egress must be an array of \"host:port\" strings");
            }
            entries.add(s.getString());
        }
        return entries;
    }

    /** Each {@code host:port} to its IPv4 destinations, in order, without repeats. */
    private static List<EgressPolicy.Destination> resolve(List<String> entries, Resolver resolver, String field) {
        Set<EgressPolicy.Destination> destinations = new LinkedHashSet<>();
        for (String entry : entries) {
            var m = ENTRY.matcher(entry);
            if (entry.length() > 260 || !m.matches()) {
                throw invalid(field + ": '" + shorten(entry) + "' is not host:port (a DNS name or an IPv4 address, "
                        + "then a port; IPv6 is not supported)");
            }
            String host = m.group(1);
            int port = Integer.parseInt(m.group(4));
            if (port < 1 || port > 65535) {
                throw invalid(field + ": the port of '" + entry + "' is not between 1 and 65535");
            }
            List<String> addresses;
            try {
                addresses = host.matches("[0-9.]+") ? List.of(host) : resolver.ipv4(host);
            } catch (UnknownHostException e) {
                throw invalid(field + ": '" + host + "' does not resolve");
            }
            if (addresses.isEmpty()) {
                throw invalid(field + ": '" + host + "' has no IPv4 address");
            }
            for (String address : addresses.subList(0, Math.min(addresses.size(), MAX_ADDRESSES_PER_NAME))) {
                if (address.startsWith("127.")) {
                    // inside a sandbox the loopback is the sandbox's own, and the host's is never a
                    // sandbox's to reach (EgressRules): a rule for it could only ever open a way there
                    throw invalid(field + ": '" + shorten(entry) + "' is a loopback address (" + address
                            + "): in a sandbox it names the sandbox itself, which needs no rule");
                }
                try {
                    destinations.add(new EgressPolicy.Destination(address, port));
                } catch (IllegalArgumentException e) {
                    throw invalid(field + ": '" + entry + "': " + e.getMessage());
                }
            }
        }
        return List.copyOf(destinations);
    }

    private static String shorten(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
