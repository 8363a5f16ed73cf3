package dev.dockyard.backend.docker;

import dev.dockyard.backend.EgressPolicy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The packet-filter rules of an {@link EgressPolicy}, as the shell script the egress helper runs
 * in the engine host's network namespace ({@link EgressHelper}).
 *
 * <p>A sandbox with a network of its own sits behind a Linux bridge whose name Dockyard chose, so
 * its traffic is recognised by the interface it comes in on ({@code -i bridge}), which the
 * sandbox cannot change. Two chains per sandbox: one jumped to from Docker's {@code DOCKER-USER}
 * (forwarded traffic: everywhere off the host) and one from {@code INPUT} (the host's own
 * addresses, the bridge gateway included). Both let through answers of connections made to the
 * sandbox (the control plane's calls to the executor's published port), then the destinations the
 * policy lists, then refuse the link-local range and everything else, TCP with a reset so a
 * refused connection fails at once.
 *
 * <p>Sandboxes of {@link EgressPolicy.Mode#OPEN} stay on the engine's default bridge, where open
 * means the internet, not the neighbours: two chains for that bridge, installed once per node. The
 * forward chain refuses the link-local range and any new connection to another container on the
 * same bridge (every open sandbox of every user is there: the review reached another tenant's
 * service ports directly, with no key); the input chain refuses new connections to the host's own
 * addresses but DNS, and drops whatever is addressed to or from its loopback. Answers to
 * connections made to a sandbox (the control plane's calls through the published port, which
 * arrive from the host) pass both. Containers on other bridges are separated by the engine itself.
 *
 * <p>The script picks the iptables flavour (nf_tables or legacy) whose {@code DOCKER-USER} chain the
 * engine made, and is idempotent: applying twice leaves one set of rules, removing twice is quiet.
 */
final class EgressRules {

    /** The host's loopback: never a sandbox's to reach, whatever it names. */
    static final String LOOPBACK = "127.0.0.0/8";
    /** Where cloud metadata services live; never reachable unless a policy lists an address there. */
    static final String LINK_LOCAL = "169.254.0.0/16";
    /** The chain of the default bridge before open sandboxes were kept from their neighbours: removed. */
    static final String LEGACY_OPEN_CHAIN = "DOCKYARD-OPEN";
    /**
     * The default bridge's forward chain (open sandboxes), from {@code DOCKER-USER}: one per bridge,
     * since the engines of several nodes may share one host's packet filter and each flushes and
     * fills its own chain (a shared one would hold the last engine's bridge only).
     */
    static String openForwardChain(String defaultBridge) {
        return "DY-OPEN-F-" + defaultBridge;
    }

    /** The default bridge's input chain (open sandboxes), from {@code INPUT}: one per bridge too. */
    static String openInputChain(String defaultBridge) {
        return "DY-OPEN-I-" + defaultBridge;
    }

    /** Fails with exit code 3 when the engine manages no iptables (no DOCKER-USER chain anywhere). */
    static final String PICK_IPTABLES = """
            if iptables-nft -w -n -L DOCKER-USER >/dev/null 2>&1; then IPT="iptables-nft -w"
            elif iptables-legacy -w -n -L DOCKER-USER >/dev/null 2>&1; then IPT="iptables-legacy -w"
            else echo "the engine's host has no DOCKER-USER chain: is the engine's iptables management off?" >&2; exit 3
            fi
            """;

    private EgressRules() {
    }

    /** The bridge interface of a sandbox's own network: 14 characters (Linux allows 15), from its name. */
    static String bridgeOf(String sandboxName) {
        return "dy" + digest(sandboxName);
    }

    /** The forward chain of a sandbox's bridge. */
    static String forwardChain(String bridge) {
        return "DOCKYARD-F-" + bridge;
    }

    /** The input chain of a sandbox's bridge. */
    static String inputChain(String bridge) {
        return "DOCKYARD-I-" + bridge;
    }

    /** The script that (re)installs the policy's rules for the bridge. */
    static String apply(String bridge, EgressPolicy policy) {
        if (!policy.ownNetwork()) {
            throw new IllegalArgumentException("an open sandbox has no rules of its own");
        }
        StringBuilder script = new StringBuilder("set -e\n").append(PICK_IPTABLES);
        for (String chain : List.of(forwardChain(bridge), inputChain(bridge))) {
            script.append("$IPT -N ").append(chain).append(" 2>/dev/null || $IPT -F ").append(chain).append('\n');
            for (String rule : chainRules(policy)) {
                script.append("$IPT -A ").append(chain).append(' ').append(rule).append('\n');
            }
        }
        script.append(jump("DOCKER-USER", bridge, forwardChain(bridge)));
        script.append(jump("INPUT", bridge, inputChain(bridge)));
        return script.toString();
    }

    /** The rules of one of a sandbox's chains, in order (also what {@code iptables -S} lists after {@code -A chain}). */
    static List<String> chainRules(EgressPolicy policy) {
        List<String> rules = new ArrayList<>();
        rules.add("-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN");
        for (EgressPolicy.Destination d : policy.allowed()) {
            rules.add("-d " + d.address() + "/32 -p tcp -m tcp --dport " + d.port() + " -j RETURN");
        }
        rules.add("-d " + LINK_LOCAL + " -j REJECT --reject-with icmp-admin-prohibited");
        rules.add("-p tcp -j REJECT --reject-with tcp-reset");
        rules.add("-j REJECT --reject-with icmp-admin-prohibited");
        return rules;
    }

    /** The script that removes a sandbox's rules; quiet when there are none. */
    static String remove(String bridge) {
        StringBuilder script = new StringBuilder(PICK_IPTABLES);
        script.append(unjump("DOCKER-USER", bridge, forwardChain(bridge)));
        script.append(unjump("INPUT", bridge, inputChain(bridge)));
        for (String chain : List.of(forwardChain(bridge), inputChain(bridge))) {
            script.append("$IPT -F ").append(chain).append(" 2>/dev/null || true\n");
            script.append("$IPT -X ").append(chain).append(" 2>/dev/null || true\n");
        }
        return script.toString();
    }

    /** The script that (re)installs the default bridge's rules for open sandboxes. */
    static String applyOpen(String defaultBridge) {
        StringBuilder script = new StringBuilder("set -e\n").append(PICK_IPTABLES);
        // the one chain of earlier versions, jumped to from both hooks: this bridge's jumps go first,
        // the chain itself once no other bridge (another engine's, not applied again yet) jumps to it
        script.append(unjump("DOCKER-USER", defaultBridge, LEGACY_OPEN_CHAIN));
        script.append(unjump("INPUT", defaultBridge, LEGACY_OPEN_CHAIN));
        script.append("if $IPT -n -L ").append(LEGACY_OPEN_CHAIN).append(" >/dev/null 2>&1 && ! { $IPT -S DOCKER-USER; ")
                .append("$IPT -S INPUT; } | grep -q -- '-j ").append(LEGACY_OPEN_CHAIN).append("$'; then $IPT -F ")
                .append(LEGACY_OPEN_CHAIN).append(" && $IPT -X ").append(LEGACY_OPEN_CHAIN).append("; fi\n");
        // both chains replaced whole in one transaction: control planes sharing an engine (a second one
        // beside a test server, a restarted one) apply them at once, and a flush and appends of two
        // scripts interleaved into a chain that refused the answers to the control plane's own calls
        script.append("case \"$IPT\" in iptables-nft*) RESTORE=\"iptables-nft-restore --noflush\" ;; ")
                .append("*) RESTORE=\"iptables-legacy-restore --noflush --wait=30\" ;; esac\n");
        script.append("printf '%s\\n' '*filter'");
        List<String> chains = List.of(openForwardChain(defaultBridge), openInputChain(defaultBridge));
        for (String chain : chains) {
            script.append(" ':").append(chain).append(" - [0:0]'");
        }
        for (String rule : openForwardRules(defaultBridge)) {
            script.append(" '-A ").append(chains.get(0)).append(' ').append(rule).append('\'');
        }
        for (String rule : openInputRules()) {
            script.append(" '-A ").append(chains.get(1)).append(' ').append(rule).append('\'');
        }
        script.append(" 'COMMIT' | $RESTORE\n");
        script.append(jump("DOCKER-USER", defaultBridge, openForwardChain(defaultBridge)));
        script.append(jump("INPUT", defaultBridge, openInputChain(defaultBridge)));
        return script.toString();
    }

    /** What an open sandbox's forwarded traffic meets: no link-local range, no neighbour on its bridge. */
    static List<String> openForwardRules(String defaultBridge) {
        return List.of(
                "-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
                "-d " + LINK_LOCAL + " -j REJECT --reject-with icmp-admin-prohibited",
                "-o " + defaultBridge + " -p tcp -j REJECT --reject-with tcp-reset",
                "-o " + defaultBridge + " -j REJECT --reject-with icmp-admin-prohibited");
    }

    /** What an open sandbox's traffic to the host's own addresses meets: DNS only, never on the loopback. */
    static List<String> openInputRules() {
        return List.of(
                "-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
                // an engine without its userland proxy publishes ports by NAT and lets its bridges route
                // 127.0.0.0/8 to the host (route_localnet): a sandbox that could set its own routes would
                // reach the host's loopback services, a resolver on 53 included, or pass for a local
                // client of one listening everywhere. Dropped as the kernel drops such martians with
                // the proxy on. Answers to the control plane's calls through published ports (de-NATed
                // to loopback addresses) are ESTABLISHED above.
                "-d " + LOOPBACK + " -j DROP",
                "-s " + LOOPBACK + " -j DROP",
                // a resolver on the host (resolv.conf naming one of its addresses) still answers
                "-p udp -m udp --dport 53 -j RETURN",
                "-p tcp -m tcp --dport 53 -j RETURN",
                "-p tcp -j REJECT --reject-with tcp-reset",
                "-j REJECT --reject-with icmp-admin-prohibited");
    }

    /** The script that prints the rules of the bridge's chains and the jumps to them ({@code iptables -S}). */
    static String list(String bridge) {
        // iptables-nft warns on standard error when the host also has legacy tables: not a rule
        return PICK_IPTABLES + "{\n"
                + "$IPT -S DOCKER-USER | grep -- '-i " + bridge + " ' || true\n"
                + "$IPT -S INPUT | grep -- '-i " + bridge + " ' || true\n"
                + "$IPT -S " + forwardChain(bridge) + " || true\n"
                + "$IPT -S " + inputChain(bridge) + " || true\n"
                + "} 2>/dev/null\n";
    }

    /** Inserts the jump first in its chain unless it is there (anywhere) already. */
    private static String jump(String from, String bridge, String to) {
        String rule = from + " -i " + bridge + " -j " + to;
        return "$IPT -C " + rule + " 2>/dev/null || $IPT -I " + rule + "\n";
    }

    /** Deletes every copy of the jump (a bounded loop: at most a few were ever inserted). */
    private static String unjump(String from, String bridge, String to) {
        return "for _ in 1 2 3 4 5; do $IPT -D " + from + " -i " + bridge + " -j " + to
                + " 2>/dev/null || break; done\n";
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }
}
