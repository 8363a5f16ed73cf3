package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker/lib/address-pools.sh, the address pools the project's scripts give the engines they start
 * (docs/user-guide.md: Egress policy, Address pools), run by bash against a host whose routes and addresses an
 * {@code ip} of the test's own describes, on daemon.json files in a temporary directory.
 */
class EngineAddressPoolsTest {

    private static final String RUNSC = """
            {
              "runtimes": {
                "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=host"]}
              }
            }
            """;

    @TempDir
    Path dir;

    @BeforeEach
    void describeTheHost() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path ip = bin.resolve("ip");
        Files.writeString(ip, """
                #!/bin/sh
                case "$*" in
                  *route*) cat "%1$s/routes" ;;
                  *addr*) cat "%1$s/addrs" ;;
                esac
                """.formatted(dir));
        Files.setPosixFilePermissions(ip, PosixFilePermissions.fromString("rwxr-xr-x"));
        host("""
                default via 192.0.2.1 dev eth0
                10.213.48.0/24 dev dy-node2 proto kernel scope link src 10.213.48.1
                172.17.0.0/16 dev docker0 proto kernel scope link src 172.17.0.1 linkdown
                local 192.0.2.2 dev eth0 table local proto kernel scope host src 192.0.2.2
                """, "127.0.0.1/8\n192.0.2.2/24\n172.17.0.1/16\n");
    }

    /** The host's routes as {@code ip -4 route show table all} lists them, and its addresses, one a line. */
    private void host(String routes, String addresses) throws IOException {
        Files.writeString(dir.resolve("routes"), routes);
        StringBuilder oneLine = new StringBuilder();
        int index = 1;
        for (String address : addresses.strip().split("\n")) {
            if (!address.isBlank()) {
                // as `ip -4 -o addr show` prints them
                oneLine.append(index).append(": if").append(index).append("    inet ").append(address)
                        .append(" scope global if").append(index).append("\\       valid_lft forever preferred_lft forever\n");
                index++;
            }
        }
        Files.writeString(dir.resolve("addrs"), oneLine.toString());
    }

    /** Sources the library and runs {@code script}, the test's {@code ip} first on the path. */
    private String bash(String script, String... environment) throws Exception {
        List<String> env = new ArrayList<>(List.of("PATH=" + dir.resolve("bin") + ":" + System.getenv("PATH")));
        env.addAll(List.of(environment));
        return EngineScripts.bash(dir, env, List.of("address-pools.sh"), script);
    }

    @Test
    void shouldTakeTheFirstCandidateNothingOnTheHostUses() throws Exception {
        assertEquals("10.144.0.0/12", bash("pool_choose").strip());
        host("10.150.3.0/24 dev eth1 proto kernel scope link src 10.150.3.7\n", "10.150.3.7/24\n");
        assertEquals("10.160.0.0/12", bash("pool_choose").strip(), "a route inside the /12 takes it out");
        host("", "10.161.0.9/32\n");
        assertEquals("10.144.0.0/12", bash("pool_choose").strip());
        host("", "10.144.0.9/32\n10.165.1.1/16\n");
        assertEquals("10.176.0.0/12", bash("pool_choose").strip(), "an address inside a /12 takes it out too");
    }

    @Test
    void shouldLeaveOutThePoolsOfTheOtherEnginesAndTheExtraEnginesBridges() throws Exception {
        Files.writeString(dir.resolve("other.json"), "{\"default-address-pools\": [{\"base\": \"10.144.0.0/12\", "
                + "\"size\": 24}]}");
        assertEquals("10.160.0.0/12", bash("pool_choose other.json missing.json").strip());
        assertTrue(bash("pool_overlaps 10.208.0.0/12 \"$POOL_RESERVED\" && echo reserved").contains("reserved"));
        assertFalse(bash("echo $POOL_CANDIDATES").contains("10.208.0.0/12"), "the /12 holding 10.213.0.0/16");
    }

    @Test
    void shouldMergeThePoolsIntoAnExistingConfigurationKeepingRunsc() throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, RUNSC);
        String out = bash("pool_ensure daemon.json DOCKYARD_T_POOL");
        assertTrue(out.contains("10.144.0.0/12 in /24 networks written"), out);
        String merged = Files.readString(config).replaceAll("\\s+", "");
        assertTrue(merged.contains("\"runsc\":{\"path\":\"/usr/bin/runsc\""), merged);
        assertTrue(merged.contains("\"default-address-pools\":[{\"base\":\"10.144.0.0/12\",\"size\":24}]"), merged);

        // chosen once: a host that changed since, or another engine's pool, does not move it
        host("10.144.0.0/16 dev eth9\n", "");
        assertTrue(bash("pool_ensure daemon.json DOCKYARD_T_POOL").contains("sets default-address-pools already"));
        assertEquals(merged, Files.readString(config).replaceAll("\\s+", ""));
    }

    /**
     * With pools and no bip the engine gives docker0 its pool's first /24 (about 250 sandboxes on
     * the default bridge): ensure-engine.sh writes a /16 outside every candidate pool instead.
     */
    @Test
    void shouldGiveTheDefaultBridgeASixteenOfItsOwnOnlyBesidePoolsAndNeverAValueDockerdRefuses()
            throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, RUNSC);
        bash("bridge_ensure daemon.json");
        assertFalse(Files.readString(config).contains("bip"), "without pools docker0 is 172.17.0.0/16 already");

        bash("pool_ensure daemon.json DOCKYARD_T_POOL");
        String out = bash("bridge_ensure daemon.json");
        assertTrue(out.contains("bip 10.214.0.1/16 written"), out);
        String merged = Files.readString(config).replaceAll("\\s+", "");
        assertTrue(merged.contains("\"bip\":\"10.214.0.1/16\""), merged);
        assertTrue(merged.contains("\"runsc\":{\"path\":\"/usr/bin/runsc\""), merged);
        assertTrue(bash("pool_overlaps 10.214.0.1/16 \"$POOL_RESERVED\" || pool_overlaps 10.214.0.1/16 10.208.0.0/12"
                + " && echo outside-candidates").contains("outside-candidates"));
        // chosen once
        assertEquals("", bash("DOCKYARD_ENGINE_BRIDGE=10.50.0.1/16 bridge_ensure daemon.json"));
        assertTrue(Files.readString(config).contains("10.214.0.1/16"));

        for (String refused : List.of("10.214.0.1/08", "010.214.0.1/16", "300.1.1.1/16", "10.214.0.1/23", "junk")) {
            Path fresh = dir.resolve("fresh.json");
            Files.writeString(fresh, "{\"default-address-pools\": [{\"base\": \"10.144.0.0/12\", \"size\": 24}]}");
            String said = bash("bridge_ensure fresh.json", "DOCKYARD_ENGINE_BRIDGE=" + refused);
            assertTrue(said.contains("left as the engine chooses"), refused + ": " + said);
            assertFalse(Files.readString(fresh).contains("bip"), refused);
        }
        Path busy = dir.resolve("busy.json");
        Files.writeString(busy, "{\"default-address-pools\": [{\"base\": \"10.144.0.0/12\", \"size\": 24}]}");
        host("10.214.7.0/24 dev eth3 proto kernel scope link src 10.214.7.1\n", "10.214.7.1/24\n");
        assertTrue(bash("bridge_ensure busy.json").contains("overlaps 10.214.7.0/24"));
        assertFalse(Files.readString(busy).contains("bip"), "a network of the host keeps it out");
    }

    @Test
    void shouldRefuseAPoolDockerdWouldNotTake() throws Exception {
        for (String refused : List.of("10.144.0.0/012", "10.144.0.0/25", "010.144.0.0/12")) {
            String said = bash("pool_ensure p.json DOCKYARD_T_POOL", "DOCKYARD_T_POOL=" + refused);
            assertTrue(said.contains("Docker's defaults kept"), refused + ": " + said);
        }
    }

    @Test
    void shouldWriteAFreshOrEmptyConfiguration() throws Exception {
        bash("pool_ensure new/daemon.json DOCKYARD_T_POOL");
        assertEquals("{\"default-address-pools\":[{\"base\":\"10.144.0.0/12\",\"size\":24}]}",
                Files.readString(dir.resolve("new/daemon.json")).replaceAll("\\s+", ""));
        Files.writeString(dir.resolve("empty.json"), "{}\n");
        bash("pool_ensure empty.json DOCKYARD_T_POOL");
        assertTrue(Files.readString(dir.resolve("empty.json")).contains("10.144.0.0/12"));
    }

    /**
     * ensure-extra-engine.sh turns live-restore on beside the pools: without it, an engine with pools
     * deletes the host's docker0 when it starts (its own --bridge notwithstanding).
     */
    @Test
    void shouldSetLiveRestoreBesideThePoolsKeepingEveryKey() throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, RUNSC);
        bash("pool_ensure daemon.json DOCKYARD_T_POOL; daemon_json_set daemon.json live-restore true");
        String merged = Files.readString(config).replaceAll("\\s+", "");
        assertTrue(merged.contains("\"runsc\":{\"path\":\"/usr/bin/runsc\""), merged);
        assertTrue(merged.contains("\"default-address-pools\":[{\"base\":\"10.144.0.0/12\",\"size\":24}]"), merged);
        assertTrue(merged.contains("\"live-restore\":true"), merged);
        bash("daemon_json_set fresh.json live-restore true");
        assertEquals("{\"live-restore\":true}", Files.readString(dir.resolve("fresh.json")).replaceAll("\\s+", ""));
    }

    @Test
    void shouldTakeTheAdminsPoolOrNoneAndRefuseANarrowOne() throws Exception {
        bash("pool_ensure a.json DOCKYARD_T_POOL", "DOCKYARD_T_POOL=10.99.0.0/16");
        assertTrue(Files.readString(dir.resolve("a.json")).contains("\"base\": \"10.99.0.0/16\""));
        String none = bash("pool_ensure b.json DOCKYARD_T_POOL", "DOCKYARD_T_POOL=none");
        assertTrue(none.contains("Docker's defaults"), none);
        assertFalse(Files.exists(dir.resolve("b.json")));
        String narrow = bash("pool_ensure c.json DOCKYARD_T_POOL", "DOCKYARD_T_POOL=10.99.0.0/25");
        assertTrue(narrow.contains("is not an IPv4 CIDR of /24 or wider"), narrow);
        assertFalse(Files.exists(dir.resolve("c.json")));
    }

    @Test
    void shouldKeepDockersDefaultsWhenEveryCandidateIsTaken() throws Exception {
        host("10.0.0.0/8 dev tun0\n", "");
        String out = bash("pool_ensure d.json DOCKYARD_T_POOL");
        assertTrue(out.contains("overlaps this host's networks"), out);
        assertFalse(Files.exists(dir.resolve("d.json")));
    }

    @Test
    void shouldOnlyHintForARunningEngine() throws Exception {
        Files.writeString(dir.resolve("daemon.json"), RUNSC);
        String hint = bash("pool_hint daemon.json 'Restart it.'");
        assertTrue(hint.contains("sets no default-address-pools") && hint.contains("Restart it."), hint);
        assertEquals(RUNSC, Files.readString(dir.resolve("daemon.json")), "never rewritten");
        bash("pool_ensure daemon.json DOCKYARD_T_POOL");
        assertEquals("", bash("pool_hint daemon.json 'Restart it.'"));
    }
}
