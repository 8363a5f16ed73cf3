package dev.dockyard.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where a sandbox may open connections (API.md's {@code sandbox.network}), enforced by the backend
 * outside the sandbox, which has no capabilities to change it.
 *
 * <ul>
 *   <li>{@link Mode#OPEN}: today's behaviour (the engine's default bridge), except the link-local
 *       range (cloud metadata services), refused node-wide on that bridge.</li>
 *   <li>{@link Mode#NONE}: no new outbound connection at all: only answers to traffic that came in
 *       (the control plane's calls to the executor through its published port).</li>
 *   <li>{@link Mode#INTERNAL}: only the services the admin lists ({@code allowed} holds them).</li>
 *   <li>{@link Mode#ALLOWLIST}: only the {@code allowed} destinations the request named, resolved
 *       to addresses when it was made.</li>
 * </ul>
 * Every mode but {@code OPEN} puts the sandbox on a network of its own whose packet filter refuses
 * the host's own addresses and the link-local range unless a destination lists them.
 *
 * @param allowed TCP destinations (IPv4 address and port) a connection may be opened to
 */
public record EgressPolicy(Mode mode, List<Destination> allowed) {

    /** The policy of every sandbox that asks for nothing else: see {@link Mode#OPEN}. */
    public static final EgressPolicy OPEN = new EgressPolicy(Mode.OPEN, List.of());

    public enum Mode {
        NONE, INTERNAL, ALLOWLIST, OPEN;

        /** The name in the API and in MP Config: lower case. */
        public String apiName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The mode of an API or configuration name, else IllegalArgumentException. */
        public static Mode of(String name) {
            for (Mode mode : values()) {
                if (mode.apiName().equals(name)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException("'" + name + "' is not a network mode; modes: none, internal, "
                    + "allowlist, open");
        }
    }

    private static final Pattern IPV4 = Pattern.compile(
            "^(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$");

    /** One TCP destination: an IPv4 address (never a name: names are resolved before) and a port. */
    public record Destination(String address, int port) {
        public Destination {
            if (address == null || !IPV4.matcher(address).matches()) {
                throw new IllegalArgumentException("'" + address + "' is not an IPv4 address");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " is not between 1 and 65535");
            }
        }

        /** {@code address:port}, also what {@link #parse} reads. */
        @Override
        public String toString() {
            return address + ":" + port;
        }

        /** An {@code address:port} with an IPv4 address, else IllegalArgumentException. */
        public static Destination parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("'" + text + "' is not address:port");
            }
            try {
                return new Destination(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has no numeric port");
            }
        }
    }

    public EgressPolicy {
        if (mode == null) {
            throw new IllegalArgumentException("a network mode is required");
        }
        allowed = List.copyOf(allowed);
        if (mode == Mode.NONE || mode == Mode.OPEN) {
            if (!allowed.isEmpty()) {
                throw new IllegalArgumentException("network mode " + mode.apiName() + " takes no destinations");
            }
        }
    }

    /** Whether the sandbox gets a network of its own with the rules of its policy (every mode but open). */
    public boolean ownNetwork() {
        return mode != Mode.OPEN;
    }

    /** How the policy is stored with its runtime: {@code mode} then its destinations, space separated. */
    public String encode() {
        StringBuilder text = new StringBuilder(mode.apiName());
        allowed.forEach(d -> text.append(' ').append(d));
        return text.toString();
    }

    /** The policy {@link #encode} wrote; null or blank (a runtime of before policies) is {@link #OPEN}. */
    public static EgressPolicy decode(String text) {
        if (text == null || text.isBlank()) {
            return OPEN;
        }
        String[] parts = text.strip().split(" ");
        List<Destination> allowed = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            allowed.add(Destination.parse(parts[i]));
        }
        return new EgressPolicy(Mode.of(parts[0]), allowed);
    }
}
