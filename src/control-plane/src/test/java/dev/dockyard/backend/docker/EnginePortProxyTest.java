package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker/lib/port-proxy.sh, how the engine ensure-engine.sh starts publishes sandbox ports (by the
 * kernel's NAT when the admin turns Docker's userland proxy off), run by bash on daemon.json files
 * in a temporary directory.
 */
class EnginePortProxyTest {

    private static final String RUNSC = """
            {
              "runtimes": {
                "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=host"]}
              }
            }
            """;

    private static final String OFF = "DOCKYARD_ENGINE_USERLAND_PROXY=off";

    @TempDir
    Path dir;

    /** Sources both libraries and runs {@code script}; the caller's own choice, if exported, is not the test's. */
    private String bash(String script, String... environment) throws Exception {
        List<String> env = new ArrayList<>(List.of("-u", "DOCKYARD_ENGINE_USERLAND_PROXY"));
        env.addAll(List.of(environment));
        return EngineScripts.bash(dir, env, List.of("address-pools.sh", "port-proxy.sh"), script);
    }

    @Test
    void shouldKeepDockersProxyUnlessTheAdminTurnsItOff() throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, RUNSC);
        assertEquals("", bash("proxy_ensure daemon.json"));
        assertEquals(RUNSC, Files.readString(config), "Docker's default kept");
        assertEquals("", bash("proxy_ensure daemon.json", "DOCKYARD_ENGINE_USERLAND_PROXY=on"));
        assertEquals(RUNSC, Files.readString(config));
        String unknown = bash("proxy_ensure daemon.json", "DOCKYARD_ENGINE_USERLAND_PROXY=no");
        assertTrue(unknown.contains("DOCKYARD_ENGINE_USERLAND_PROXY=no is neither on nor off"), unknown);
        assertEquals(RUNSC, Files.readString(config));
    }

    @Test
    void shouldTurnTheProxyOffKeepingEveryOtherKey() throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, RUNSC);
        String out = bash("proxy_ensure daemon.json", OFF);
        assertTrue(out.contains("userland-proxy false written"), out);
        String merged = Files.readString(config).replaceAll("\\s+", "");
        assertTrue(merged.contains("\"userland-proxy\":false"), merged);
        assertTrue(merged.contains("\"runsc\":{\"path\":\"/usr/bin/runsc\""), merged);
        // a fresh file too
        bash("proxy_ensure fresh.json", OFF);
        assertEquals("{\"userland-proxy\":false}", Files.readString(dir.resolve("fresh.json")).replaceAll("\\s+", ""));
    }

    @Test
    void shouldKeepAnAdminsChoiceAndAnEngineWithoutIptables() throws Exception {
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, "{\"userland-proxy\": true}");
        assertTrue(bash("proxy_ensure daemon.json", OFF).contains("sets userland-proxy already; kept"));
        assertEquals("{\"userland-proxy\": true}", Files.readString(config));

        Files.writeString(config, "{\"iptables\": false}");
        assertTrue(bash("proxy_ensure daemon.json", OFF).contains("manages no iptables"));
        assertEquals("{\"iptables\": false}", Files.readString(config), "its ports need the proxy");
    }
}
