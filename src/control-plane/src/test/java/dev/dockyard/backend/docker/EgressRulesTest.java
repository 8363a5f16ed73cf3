package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.EgressPolicy.Destination;
import dev.dockyard.backend.EgressPolicy.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

class EgressRulesTest {

    private static final EgressPolicy ALLOW = new EgressPolicy(Mode.ALLOWLIST,
            List.of(new Destination("10.1.2.3", 5432), new Destination("151.101.0.223", 443)));

    @Test
    void shouldNameABridgeLinuxAccepts() {
        String bridge = EgressRules.bridgeOf("dockyard-0123456789abcdef0123456789abcdef");
        assertTrue(bridge.length() <= 15, bridge);
        assertTrue(bridge.matches("dy[0-9a-f]{12}"), bridge);
        assertEquals(bridge, EgressRules.bridgeOf("dockyard-0123456789abcdef0123456789abcdef"));
        assertNotEquals(bridge, EgressRules.bridgeOf("dockyard-other"));
        assertTrue(EgressRules.forwardChain(bridge).length() <= 28, "iptables chain names are at most 28 characters");
    }

    @Test
    void shouldLetAnswersThenListedDestinationsThenRefuseEverythingElse() {
        assertEquals(List.of(
                "-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN",
                "-d 10.1.2.3/32 -p tcp -m tcp --dport 5432 -j RETURN",
                "-d 151.101.0.223/32 -p tcp -m tcp --dport 443 -j RETURN",
                "-d 169.254.0.0/16 -j REJECT --reject-with icmp-admin-prohibited",
                "-p tcp -j REJECT --reject-with tcp-reset",
                "-j REJECT --reject-with icmp-admin-prohibited"), EgressRules.chainRules(ALLOW));
    }

    @Test
    void shouldAllowNoNewConnectionInModeNone() {
        List<String> rules = EgressRules.chainRules(new EgressPolicy(Mode.NONE, List.of()));
        assertEquals(4, rules.size());
        assertTrue(rules.stream().filter(r -> r.endsWith("-j RETURN")).allMatch(r -> r.contains("ESTABLISHED")),
                "the only way through is an answer: " + rules);
        assertTrue(rules.get(rules.size() - 1).startsWith("-j REJECT"), "everything else is refused");
    }

    @Test
    void shouldRefuseLinkLocalUnlessListed() {
        EgressPolicy listed = new EgressPolicy(Mode.ALLOWLIST, List.of(new Destination("169.254.10.10", 80)));
        List<String> rules = EgressRules.chainRules(listed);
        int allow = rules.indexOf("-d 169.254.10.10/32 -p tcp -m tcp --dport 80 -j RETURN");
        int refuse = rules.indexOf("-d 169.254.0.0/16 -j REJECT --reject-with icmp-admin-prohibited");
        assertTrue(allow >= 0 && refuse > allow, "the listed address comes before the range's refusal: " + rules);
    }

    @Test
    void shouldGuardBothForwardedTrafficAndTheHostItself() {
        String bridge = EgressRules.bridgeOf("dockyard-r1");
        String script = EgressRules.apply(bridge, ALLOW);
        assertTrue(script.startsWith("set -e\n"), "a failed rule fails the whole apply");
        assertTrue(script.contains("$IPT -C DOCKER-USER -i " + bridge + " -j DOCKYARD-F-" + bridge
                + " 2>/dev/null || $IPT -I DOCKER-USER -i " + bridge + " -j DOCKYARD-F-" + bridge + "\n"), script);
        assertTrue(script.contains("$IPT -C INPUT -i " + bridge + " -j DOCKYARD-I-" + bridge
                + " 2>/dev/null || $IPT -I INPUT -i " + bridge + " -j DOCKYARD-I-" + bridge + "\n"), script);
        for (String chain : List.of("DOCKYARD-F-" + bridge, "DOCKYARD-I-" + bridge)) {
            assertTrue(script.contains("$IPT -N " + chain + " 2>/dev/null || $IPT -F " + chain + "\n"),
                    "applying again replaces the chain's rules: " + script);
            assertTrue(script.contains("$IPT -A " + chain + " -d 10.1.2.3/32 -p tcp -m tcp --dport 5432 -j RETURN\n"));
        }
        assertTrue(script.contains("iptables-nft -w") && script.contains("iptables-legacy -w"),
                "the flavour the engine uses is picked");
    }

    @Test
    void shouldRemoveJumpsAndChainsQuietly() {
        String bridge = EgressRules.bridgeOf("dockyard-r1");
        String script = EgressRules.remove(bridge);
        assertTrue(script.contains("$IPT -D DOCKER-USER -i " + bridge + " -j DOCKYARD-F-" + bridge), script);
        assertTrue(script.contains("$IPT -D INPUT -i " + bridge + " -j DOCKYARD-I-" + bridge), script);
        assertTrue(script.contains("$IPT -X DOCKYARD-F-" + bridge + " 2>/dev/null || true"), script);
        assertTrue(!script.contains("set -e"), "removing what is not there is no error");
    }

    @Test
    void shouldKeepOpenSandboxesFromLinkLocalTheirNeighboursAndTheHost() {
        String script = EgressRules.applyOpen("docker0");
        assertTrue(script.contains("'-A DY-OPEN-F-docker0 -d 169.254.0.0/16 -j REJECT"), script);
        // another container on the same bridge: another tenant's sandbox
        assertTrue(script.contains("'-A DY-OPEN-F-docker0 -o docker0 -p tcp -j REJECT --reject-with tcp-reset"),
                script);
        assertTrue(script.contains("'-A DY-OPEN-F-docker0 -o docker0 -j REJECT"), script);
        // the host's own addresses, but DNS
        assertTrue(script.contains("'-A DY-OPEN-I-docker0 -p udp -m udp --dport 53 -j RETURN"), script);
        assertTrue(script.contains("'-A DY-OPEN-I-docker0 -p tcp -j REJECT --reject-with tcp-reset"), script);
        // nothing new to the host's loopback, not even its resolver: an engine without its userland
        // proxy lets its bridges route 127.0.0.0/8 to the host; answers to the control plane's calls pass
        int loopback = script.indexOf("'-A DY-OPEN-I-docker0 -d 127.0.0.0/8 -j DROP'");
        int fromLoopback = script.indexOf("'-A DY-OPEN-I-docker0 -s 127.0.0.0/8 -j DROP'");
        int dns = script.indexOf("'-A DY-OPEN-I-docker0 -p udp -m udp --dport 53");
        assertTrue(loopback >= 0 && loopback < dns && fromLoopback > loopback && fromLoopback < dns, script);
        assertTrue(script.indexOf("'-A DY-OPEN-I-docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN")
                < loopback, script);
        // answers to the control plane's own calls come first in both
        int established = script.indexOf("'-A DY-OPEN-F-docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN");
        assertTrue(established >= 0 && established < script.indexOf("'-A DY-OPEN-F-docker0 -o docker0"), script);
        assertTrue(script.indexOf("'-A DY-OPEN-I-docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN")
                < script.indexOf("'-A DY-OPEN-I-docker0 -p tcp -j REJECT"), script);
        // each chain replaced whole, in one transaction: two control planes applying at once cannot interleave
        assertTrue(script.contains("':DY-OPEN-F-docker0 - [0:0]' ':DY-OPEN-I-docker0 - [0:0]'"), script);
        assertTrue(script.contains("'COMMIT' | $RESTORE"), script);
        assertTrue(!script.contains("$IPT -A DY-OPEN") && !script.contains("$IPT -F DY-OPEN"), script);
        assertTrue(script.contains("-I DOCKER-USER -i docker0 -j DY-OPEN-F-docker0"), script);
        assertTrue(script.contains("-I INPUT -i docker0 -j DY-OPEN-I-docker0"), script);
        // another engine on the same host has chains of its own
        assertTrue(EgressRules.applyOpen("dy-node2").contains("'-A DY-OPEN-F-dy-node2 -o dy-node2 -p tcp"));
        assertTrue(!EgressRules.applyOpen("dy-node2").contains("docker0"));
        // an engine host of an earlier version loses its single chain
        assertTrue(script.contains("$IPT -D DOCKER-USER -i docker0 -j DOCKYARD-OPEN "), script);
        assertTrue(script.contains("$IPT -F DOCKYARD-OPEN && $IPT -X DOCKYARD-OPEN; fi"), script);
        // ... but not while another bridge still jumps to it: flushing it would drop that bridge's refusal
        assertTrue(script.contains("grep -q -- '-j DOCKYARD-OPEN$'; then"), script);
    }

    @Test
    void shouldHaveNoRulesOfItsOwnForAnOpenSandbox() {
        assertThrows(IllegalArgumentException.class, () -> EgressRules.apply("dy000000000000", EgressPolicy.OPEN));
    }
}
