package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Egress policies (sandbox.network) on the real engine. Every server the sandboxes are pointed at
 * is the test's own: two on a link-local address the test assigns inside a network namespace it
 * makes (routed from the host through a veth pair), standing in for a metadata service, and one on
 * the host's side of the sandbox's own bridge. The rules are read back from the engine's host with
 * the egress helper image. The IT server lists 169.254.77.2:18080 as its only internal service
 * (ControlPlaneSettings). The migration test's listed servers are the test JVM's own, on the address the test
 * assigned to the host's end of its veth pair (node2 forwards nothing: ensure-extra-engine.sh). No
 * lookup leaves a sandbox for anything but its own network's gateway, and none is made in an open
 * sandbox.
 */
class EgressPolicyIT {

    private static final DockyardApi API = new DockyardApi();
    private static final String NAMESPACE = "dyeg-it";
    private static final String HOST_END = "dyeg-h";
    private static final String NAMESPACE_END = "dyeg-n";
    private static final String HOST_ADDRESS = "169.254.77.1";
    /** The test's own link-local server address, inside its namespace. */
    private static final String SERVER = "169.254.77.2";
    private static final int LISTED = 18080;
    private static final int UNLISTED = 18081;
    private static final String HELPER = "dockyard/egress-helper:latest";
    /** The main engine, as the docker CLI finds it (DOCKER_HOST or its default socket). */
    private static final String MAIN = null;
    private static final String RUN_ID = UUID.randomUUID().toString().substring(0, 8);
    private static final String LISTED_TOKEN = "listed-" + RUN_ID;
    private static final String UNLISTED_TOKEN = "unlisted-" + RUN_ID;

    private static final List<Process> SERVERS = new ArrayList<>();
    private static final List<String> RUNTIMES = new ArrayList<>();
    private static final List<String> MEASURED = new ArrayList<>();
    private static Path serverDir;

    @BeforeAll
    static void startTheTestsOwnServers() throws Exception {
        sh("ip netns del " + NAMESPACE + " 2>/dev/null; true");
        sh("ip netns add " + NAMESPACE
                + " && ip link add " + HOST_END + " type veth peer name " + NAMESPACE_END
                + " && ip link set " + NAMESPACE_END + " netns " + NAMESPACE
                + " && ip addr add " + HOST_ADDRESS + "/30 dev " + HOST_END + " && ip link set " + HOST_END + " up"
                + " && ip netns exec " + NAMESPACE + " ip addr add " + SERVER + "/30 dev " + NAMESPACE_END
                + " && ip netns exec " + NAMESPACE + " ip link set " + NAMESPACE_END + " up"
                + " && ip netns exec " + NAMESPACE + " ip link set lo up");
        serverDir = Files.createTempDirectory("egress-it");
        // a JDK's own HTTP server, run from source inside the namespace: nothing but the JDK is assumed
        Path source = serverDir.resolve("TokenServer.java");
        Files.writeString(source, String.join("\n",
                "import com.sun.net.httpserver.HttpServer;",
                "import java.net.InetSocketAddress;",
                "public class TokenServer {",
                "    public static void main(String[] a) throws Exception {",
                "        byte[] body = a[2].getBytes();",
                "        HttpServer s = HttpServer.create(new InetSocketAddress(a[0], Integer.parseInt(a[1])), 0);",
                "        s.createContext(\"/\", x -> { x.sendResponseHeaders(200, body.length);",
                "            x.getResponseBody().write(body); x.close(); });",
                "        s.start();",
                "    }",
                "}"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (var server : List.of(new Object[] {LISTED, LISTED_TOKEN}, new Object[] {UNLISTED, UNLISTED_TOKEN})) {
            SERVERS.add(new ProcessBuilder("ip", "netns", "exec", NAMESPACE, java, source.toString(), SERVER,
                    String.valueOf(server[0]), (String) server[1])
                    .redirectErrorStream(true).redirectOutput(serverDir.resolve(server[0] + ".log").toFile()).start());
        }
        // the servers answer the host itself (no policy on that path) before any sandbox tries them
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int port : List.of(LISTED, UNLISTED)) {
            String body = null;
            for (int i = 0; i < 100 && body == null; i++) {
                try {
                    body = client.send(HttpRequest.newBuilder(URI.create("http://" + SERVER + ":" + port + "/"))
                            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
                } catch (IOException e) {
                    Thread.sleep(200);
                }
            }
            assertTrue(body != null && body.contains(port == LISTED ? LISTED_TOKEN : UNLISTED_TOKEN),
                    "the test's server on " + SERVER + ":" + port + " does not answer the host: " + body);
        }
    }

    @AfterAll
    static void stopThem() throws Exception {
        // a fork leaves the snapshot it was made from (snapshots outlive their runtimes until deleted):
        // its image would stay on the engine after the run. Deleted once the runtimes are, since the
        // fork's container still uses its image until then.
        List<String> snapshots = API.get("snapshots").json().getJsonArray("snapshots").getValuesAs(JsonObject.class)
                .stream().filter(snapshot -> RUNTIMES.contains(snapshot.getString("runtimeId", "")))
                .map(snapshot -> snapshot.getString("id")).toList();
        for (String id : RUNTIMES) {
            API.delete("runtimes/" + id);
        }
        for (String snapshot : snapshots) {
            for (int attempt = 0; attempt < 20; attempt++) {
                int status = API.delete("snapshots/" + snapshot).status();
                if (status == 204 || status == 404) {
                    break;
                }
                Thread.sleep(500);
            }
        }
        for (Process p : SERVERS) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        sh("ip netns del " + NAMESPACE + " 2>/dev/null; true");
        MEASURED.forEach(m -> System.out.println("[egress-cost] " + m));
    }

    @Test
    void shouldLetThroughOnlyTheListedServerInAllowlist() throws Exception {
        JsonObject runtime = provision("allowlist", Json.createArrayBuilder().add(SERVER + ":" + LISTED));
        String id = runtime.getString("id");
        String bridge = bridgeOf(id);
        assertEquals(Json.createObjectBuilder().add("mode", "allowlist")
                .add("egress", Json.createArrayBuilder().add(SERVER + ":" + LISTED)).build(),
                API.get("runtimes/" + id).json().getJsonObject("network"), "the policy in the runtime's view");

        assertEquals("OK " + LISTED_TOKEN, fetch(id, SERVER, LISTED));
        assertTrue(fetch(id, SERVER, UNLISTED).startsWith("FAIL"), "an unlisted port of the same address");
        assertHostUnreachable(id);

        String rules = rules(bridge);
        assertTrue(rules.contains("-A DOCKER-USER -i " + bridge + " -j DOCKYARD-F-" + bridge), rules);
        assertTrue(rules.contains("-A INPUT -i " + bridge + " -j DOCKYARD-I-" + bridge), rules);
        for (String chain : List.of("DOCKYARD-F-" + bridge, "DOCKYARD-I-" + bridge)) {
            assertTrue(rules.contains("-A " + chain + " -d " + SERVER + "/32 -p tcp -m tcp --dport " + LISTED
                    + " -j RETURN"), rules);
            assertTrue(rules.contains("-A " + chain + " -d 169.254.0.0/16 -j REJECT --reject-with "
                    + "icmp-admin-prohibited"), rules);
            assertTrue(rules.contains("-A " + chain + " -j REJECT"), rules);
        }

        // the agent tries to undo it from inside: it has no capability to
        String status = API.act(id, DockyardApi.run("grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status"))
                .getString("content");
        assertTrue(status.matches("(?s).*CapPrm:\\s+0+\\s.*CapEff:\\s+0+\\s.*NoNewPrivs:\\s+1.*"), status);
        String attempts = python(id, String.join("\n",
                "import fcntl, socket, struct",
                "out = []",
                "def attempt(name, f):",
                "    try:",
                "        f(); out.append(name + '-done')",
                "    except OSError as e:",
                "        out.append(name + '-refused')",
                "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
                "attempt('ifdown', lambda: fcntl.ioctl(s, 0x8914, struct.pack('16sH14s', b'eth0', 0, bytes(14))))",
                "attempt('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW))",
                "attempt('sysctl', lambda: open('/proc/sys/net/ipv4/ip_forward', 'w').write('0'))",
                "print(' '.join(out))"));
        assertTrue(attempts.contains("ifdown-refused") && attempts.contains("raw-refused")
                && attempts.contains("sysctl-refused") && !attempts.contains("ifdown-done")
                && !attempts.contains("raw-done") && !attempts.contains("sysctl-done"), attempts);
        assertEquals(rules, rules(bridge), "the rules are unchanged");
        assertTrue(fetch(id, SERVER, UNLISTED).startsWith("FAIL"));
        assertEquals("OK " + LISTED_TOKEN, fetch(id, SERVER, LISTED));

        // the network and the rules go with the runtime
        int deleted = API.delete("runtimes/" + id).status();
        assertTrue(deleted >= 200 && deleted < 300, "DELETE answered " + deleted);
        assertFalse(DockerCli.run("network", "inspect", network(id)).exitCode() == 0, "the network is gone");
        assertEquals("", rules(bridge), "the rules are gone");
    }

    @Test
    void shouldKeepThePolicyOfTheRuntimeItWasForkedFrom() throws Exception {
        String original = provision("allowlist", Json.createArrayBuilder().add(SERVER + ":" + LISTED)).getString("id");
        String fork = fork(original);
        assertEquals(API.get("runtimes/" + original).json().getJsonObject("network"),
                API.get("runtimes/" + fork).json().getJsonObject("network"), "the fork's view shows the same policy");
        assertOwnNetworkWithTheSameRules(MAIN, fork, "allowlist " + SERVER + ":" + LISTED, bridgeOf(original),
                rules(bridgeOf(original)));
        assertEquals("OK " + LISTED_TOKEN, fetch(fork, SERVER, LISTED));
        assertTrue(fetch(fork, SERVER, UNLISTED).startsWith("FAIL"), "the fork is held to the same list");
        assertHostUnreachable(fork);
    }

    /** A fork (a snapshot, then a runtime from it) of a none runtime is as shut in as its source. */
    @Test
    void shouldGiveAForkOfANoneRuntimeANetworkOfItsOwnUnderTheSameRules() throws Exception {
        String original = provision("none", null).getString("id");
        String fork = fork(original);
        assertEquals(Json.createObjectBuilder().add("mode", "none").add("egress", Json.createArrayBuilder()).build(),
                API.get("runtimes/" + fork).json().getJsonObject("network"), "the fork's view");
        assertOwnNetworkWithTheSameRules(MAIN, fork, "none", bridgeOf(original), rules(bridgeOf(original)));
        assertTrue(fetch(fork, SERVER, LISTED).startsWith("FAIL"));
        assertTrue(fetch(fork, SERVER, UNLISTED).startsWith("FAIL"));
        assertHostUnreachable(fork);
    }

    /**
     * A runtime migrated to node2 (the second engine, ensure-extra-engine.sh) keeps its allowlist
     * there: a network of node2's own, the same rules installed by the helper image node2 runs, the
     * listed server answering and nothing else. node2 adds no masquerade and forwards nothing
     * (ensure-extra-engine.sh), so the listed server is one the host itself holds: the test's own,
     * on the address it assigned to its end of the veth pair.
     */
    @Test
    void shouldKeepTheAllowlistOfARuntimeMigratedToTheOtherNode() throws Exception {
        Path node2Config = Path.of("/var/lib/dockyard-node2/daemon.json");
        assertTrue(Files.exists(node2Config) && Files.readString(node2Config).contains("default-address-pools"),
                "node2 runs on Docker's default address pools, which the main engine draws from too (its sandbox "
                        + "networks could take a subnet the main engine's bridges hold): stop it (kill $(cat "
                        + "/var/run/dockyard-node2.pid)) when nothing uses it; the it build starts it again with "
                        + "pools of its own (docker/ensure-extra-engine.sh)");
        HttpServer listed = hostServer(HOST_ADDRESS, "listed-host-" + RUN_ID);
        HttpServer unlisted = hostServer(HOST_ADDRESS, "unlisted-host-" + RUN_ID);
        try {
            int listedPort = listed.getAddress().getPort();
            int unlistedPort = unlisted.getAddress().getPort();
            String destination = HOST_ADDRESS + ":" + listedPort;
            JsonObject runtime = provision("allowlist", Json.createArrayBuilder().add(destination), "local");
            String source = runtime.getString("id");
            assertEquals("local", runtime.getString("node"));
            assertEquals("OK listed-host-" + RUN_ID, fetch(source, HOST_ADDRESS, listedPort));
            assertTrue(fetch(source, HOST_ADDRESS, unlistedPort).startsWith("FAIL"));
            JsonObject view = API.get("runtimes/" + source).json().getJsonObject("network");
            String sourceBridge = bridgeOf(source);
            String sourceRules = rules(sourceBridge);

            DockyardApi.Answer moved = API.migrate(source, "{\"node\": \"node2\"}", null, 180);
            if (moved.json().containsKey("id")) {
                RUNTIMES.add(moved.json().getString("id"));
            }
            assertEquals(201, moved.status(), moved.body());
            assertEquals("READY", moved.json().getString("status"), moved.body());
            assertEquals("node2", moved.json().getString("node"));
            String target = moved.json().getString("id");

            assertEquals(view, API.get("runtimes/" + target).json().getJsonObject("network"),
                    "the migrated runtime's view shows the same policy");
            assertOwnNetworkWithTheSameRules(DockerCli.NODE2, target, "allowlist " + destination, sourceBridge,
                    sourceRules);
            assertEquals("OK listed-host-" + RUN_ID, fetch(target, HOST_ADDRESS, listedPort));
            assertTrue(fetch(target, HOST_ADDRESS, unlistedPort).startsWith("FAIL"), "held to the same list");
            assertTrue(fetch(target, SERVER, LISTED).startsWith("FAIL"), "the link-local range stays refused");
            assertHostUnreachable(DockerCli.NODE2, target);

            // the source's network and rules went with it on the first node
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (DockerCli.run("network", "inspect", network(source)).exitCode() == 0 && System.nanoTime() < deadline) {
                sleep(500);
            }
            assertFalse(DockerCli.run("network", "inspect", network(source)).exitCode() == 0, "the source's network");
            assertEquals("", rules(sourceBridge), "the source's rules");
        } finally {
            listed.stop(0);
            unlisted.stop(0);
        }
    }

    /**
     * DNS is no way out: the engine's embedded DNS server forwards what it cannot answer to the
     * sandbox's only DNS server, its network's gateway, from the sandbox's own namespace, and the
     * rules refuse it there. Before any lookup the test makes sure that the engine knows no other
     * server and that the rules are in place: the query can reach the gateway and nothing else.
     */
    @Test
    void shouldGiveASandboxOfModeNoneOnlyAResolverItsRulesRefuse() {
        String id = provision("none", null).getString("id");
        String gateway = gatewayOf(MAIN, id);
        String bridge = bridgeOf(id);
        assertEquals("[\"" + gateway + "\"]", docker(MAIN, "inspect", "-f", "{{json .HostConfig.Dns}}", container(id)),
                "the gateway is the sandbox's only DNS server");
        assertEquals("[\".\"]", docker(MAIN, "inspect", "-f", "{{json .HostConfig.DnsSearch}}", container(id)));
        assertEquals("[\"timeout:1\",\"attempts:1\"]",
                docker(MAIN, "inspect", "-f", "{{json .HostConfig.DnsOptions}}", container(id)));
        assertEquals("nameserver 127.0.0.11", shell(id, "grep '^nameserver' /etc/resolv.conf"),
                "the sandbox's resolver is the engine's embedded server, nothing else");
        assertTrue(rules(bridge).contains("-A INPUT -i " + bridge + " -j DOCKYARD-I-" + bridge),
                "the rules that refuse the gateway are in place");

        long refusedBefore = refusedByTheHost(bridge);
        String lookup = shell(id, "s=$(date +%s%N); getent hosts dockyard-egress-probe.invalid; rc=$?; "
                + "e=$(date +%s%N); echo \"rc=$rc ms=$(( (e - s) / 1000000 ))\"");
        Matcher m = Pattern.compile("rc=(\\d+) ms=(\\d+)").matcher(lookup);
        assertTrue(m.find(), lookup);
        MEASURED.add("none: a lookup of a name only a resolver could answer failed in " + m.group(2) + " ms");
        assertNotEquals("0", m.group(1), "the name must not resolve: " + lookup);
        assertTrue(Long.parseLong(m.group(2)) < 8000, "the lookup fails promptly: " + lookup);
        assertTrue(refusedByTheHost(bridge) > refusedBefore,
                "the forwarded query reached the gateway through the sandbox's bridge and was refused there");

        String hosts = shell(id, "getent hosts unspecified-address");
        assertTrue(hosts.startsWith("0.0.0.0") && hosts.contains("unspecified-address"),
                "/etc/hosts entries answer without DNS: " + hosts);
    }

    @Test
    void shouldReachNothingTheTestStartedInModeNone() throws Exception {
        JsonObject runtime = provision("none", null);
        String id = runtime.getString("id");
        // the control plane reaches the executor all the same: these actions go through it
        assertTrue(fetch(id, SERVER, LISTED).startsWith("FAIL"));
        assertTrue(fetch(id, SERVER, UNLISTED).startsWith("FAIL"));
        assertHostUnreachable(id);
        String rules = rules(bridgeOf(id));
        assertFalse(rules.contains("--dport"), "no destination is listed: " + rules);
    }

    @Test
    void shouldGiveTheInternalModeTheAdminsServicesOnly() throws Exception {
        JsonObject runtime = provision("internal", null);
        String id = runtime.getString("id");
        assertEquals("OK " + LISTED_TOKEN, fetch(id, SERVER, LISTED));
        assertTrue(fetch(id, SERVER, UNLISTED).startsWith("FAIL"));
    }

    @Test
    void shouldRefuseLinkLocalToAnOpenSandbox() throws Exception {
        JsonObject runtime = provision(null, null);
        String id = runtime.getString("id");
        assertTrue(fetch(id, SERVER, LISTED).startsWith("FAIL"), "the link-local range is refused on the default bridge");
        String bridge = DockerCli.ok("network", "inspect", "-f",
                "{{index .Options \"com.docker.network.bridge.name\"}}", "bridge");
        String rules = DockerCli.ok("run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add",
                "NET_RAW", HELPER, "{ iptables -S DY-OPEN-F-" + bridge + "; iptables -S DY-OPEN-I-" + bridge + "; iptables -S DOCKER-USER; "
                        + "iptables -S INPUT; } 2>/dev/null");
        assertTrue(rules.contains("-A DY-OPEN-F-" + bridge + " -d 169.254.0.0/16 -j REJECT"), rules);
        assertTrue(rules.contains("-A DOCKER-USER -i " + bridge + " -j DY-OPEN-F-" + bridge), rules);
        assertTrue(rules.contains("-A INPUT -i " + bridge + " -j DY-OPEN-I-" + bridge), rules);
        assertTrue(rules.lines().noneMatch(l -> l.endsWith("-i " + bridge + " -j DOCKYARD-OPEN")),
                "the bridge no longer jumps to the single chain of earlier versions: " + rules);
    }

    /** The Remote Runtime API's start takes the same choice (Dockyard's extension fields network and egress). */
    @Test
    void shouldTakeTheEgressChoiceOnTheRuntimeApisStart() {
        RuntimeApi.User user = RuntimeApi.newUser("it-egress-rtapi");
        JsonObject body = Json.createObjectBuilder(DockyardImageThroughRuntimeApiIT.legacyStart(
                RuntimeApi.appServerSessionId(), "egress")).add("network", "none").build();
        String id = user.runtimes().started(body).getString("runtime_id");
        try {
            DockyardImageThroughRuntimeApiIT.awaitReadyLikeTheLegacyRuntime(user.runtimes(), id);
            List<String> containers = DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id);
            assertEquals(1, containers.size(), containers.toString());
            assertTrue(DockerCli.inspect(containers.get(0), "{{.HostConfig.NetworkMode}}").startsWith("dockyard-net-"),
                    "a network of its own, as sandbox.network none on /api/v1");
            DockyardApi.Answer bad = user.runtimes().start(Json.createObjectBuilder(body).add("session_id",
                    RuntimeApi.appServerSessionId()).add("network", "anywhere").build());
            assertEquals(400, bad.status(), bad.body());
            assertTrue(bad.body().contains("sandbox.network must be one of"), bad.body());
        } finally {
            user.runtimes().stop(id);
        }
    }

    /**
     * Open means the internet, not the neighbours: an open sandbox reaches neither another user's
     * open sandbox on the same bridge (a service it listens on, with no key) nor a server on the
     * host's own address, while the control plane still reaches both through their published ports.
     */
    @Test
    void shouldKeepOpenSandboxesOfDifferentUsersApartAndAwayFromTheHost() throws Exception {
        DockyardApi other = API.withKey(API.post("users", Json.createObjectBuilder()
                .add("userId", "it-egress-" + RUN_ID).build()).json().getString("apiKey"));
        String a = provision(null, null).getString("id");
        DockyardApi.Answer answer = other.provision(Json.createObjectBuilder()
                .add("conversationId", "it-egress-b-" + RUN_ID).build(), 180);
        assertEquals(201, answer.status(), answer.body());
        String b = answer.json().getString("id");
        try {
            // B serves a page on its own address
            other.act(b, DockyardApi.run("mkdir -p /tmp/www && echo neighbour-" + RUN_ID + " > /tmp/www/index.html && "
                    + "(nohup python3 -m http.server 18099 --directory /tmp/www >/dev/null 2>&1 &)"));
            String own = other.act(b, DockyardApi.run("for i in $(seq 1 50); do python3 -c \"import urllib.request;"
                    + "print(urllib.request.urlopen('http://127.0.0.1:18099/', timeout=2).read().decode())\" "
                    + "2>/dev/null && break; sleep 0.2; done")).getString("content");
            assertTrue(own.contains("neighbour-" + RUN_ID), "B's server answers B itself: " + own);
            String address = DockerCli.inspect("dockyard-" + b, "{{.NetworkSettings.IPAddress}}");
            assertFalse(address.isBlank(), "B is on the default bridge");

            String reached = fetch(a, address, 18099);
            assertTrue(reached.startsWith("FAIL"), "A reached B's service directly: " + reached);
            String gateway = DockerCli.ok("network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", "bridge");
            HttpServer host = hostServer(gateway, "host-" + RUN_ID);
            try {
                String onHost = fetch(a, gateway, host.getAddress().getPort());
                assertTrue(onHost.startsWith("FAIL"), "the host's own address answered an open sandbox: " + onHost);
            } finally {
                host.stop(0);
            }
            // A still reaches itself, and the control plane A
            assertEquals("still-here", API.act(a, DockyardApi.run("echo still-here")).getString("content").strip());
        } finally {
            other.delete("runtimes/" + b);
        }
    }

    /**
     * An engine without its userland proxy (an admin's choice: "userland-proxy": false) publishes
     * ports by NAT and lets its bridges route 127.0.0.0/8 to the host (route_localnet; set here for
     * the test's duration when the engine runs its proxy). An open sandbox whose routes send the
     * loopback to its gateway (set from the host, in its network namespace, as a sandbox holding
     * NET_ADMIN could) reaches none of the host's loopback services, a server on port 53 (which the
     * bridge's input chain otherwise lets through, for resolvers) included: the chain's loopback
     * rule drops them, its counter shows they arrived. A server on the gateway's port 53 still
     * answers the same sandbox, and the control plane still reaches it.
     */
    @Test
    void shouldKeepTheHostsLoopbackFromAnOpenSandboxThatRoutesThere() throws Exception {
        String bridge = DockerCli.ok("network", "inspect", "-f",
                "{{index .Options \"com.docker.network.bridge.name\"}}", "bridge");
        Path routesLoopback = Path.of("/proc/sys/net/ipv4/conf", bridge, "route_localnet");
        // an engine with its userland proxy leaves the kernel's martian filter on: turned off as an
        // engine without it does, and back as it was after
        boolean routedAlready = Files.readString(routesLoopback).strip().equals("1");
        if (!routedAlready) {
            Files.writeString(routesLoopback, "1");
        }
        try {
            loopbackRefusedToARoutingSandbox(bridge);
        } finally {
            if (!routedAlready) {
                Files.writeString(routesLoopback, "0");
            }
        }
    }

    private void loopbackRefusedToARoutingSandbox(String bridge) throws Exception {
        String id = provision(null, null).getString("id");
        String container = "dockyard-" + id;
        String pid = DockerCli.inspect(container, "{{.State.Pid}}");
        String address = DockerCli.inspect(container, "{{.NetworkSettings.IPAddress}}");
        String gateway = DockerCli.inspect(container, "{{.NetworkSettings.Gateway}}");
        // 127.77.x.1:53, a socket no sandbox's published port takes (the engine picks ports from 32768)
        String loopback = "127.77." + (1 + Math.floorMod(RUN_ID.hashCode(), 250)) + ".1";
        List<HttpServer> servers = new ArrayList<>();
        try {
            HttpServer web = hostServer("127.0.0.1", "loopback-" + RUN_ID);
            servers.add(web);
            try {
                servers.add(hostServer(loopback, 53, "loopback-53-" + RUN_ID));
                servers.add(hostServer(gateway, 53, "gateway-53-" + RUN_ID));
            } catch (BindException e) {
                // a resolver of the host's own listens on every address's port 53
                Assumptions.abort("port 53 is taken on this host: " + e.getMessage());
            }
            sh("nsenter -t " + pid + " -n sh -c 'sysctl -qw net.ipv4.conf.all.route_localnet=1 "
                    + "net.ipv4.conf.eth0.route_localnet=1 && ip route del local 127.0.0.0/8 dev lo table local "
                    + "&& ip route del local 127.0.0.1 dev lo table local "
                    + "&& ip route add 127.0.0.0/8 via " + gateway + " dev eth0 src " + address + "'");
            String onLoopback = fetch(id, "127.0.0.1", web.getAddress().getPort());
            assertTrue(onLoopback.startsWith("FAIL"), "the host's loopback answered an open sandbox: " + onLoopback);
            // the port the chain lets through for resolvers: the packets reach the host's INPUT (a counting
            // rule of the test's own, ahead of the bridge's chain, which control planes starting beside
            // this test replace with fresh counters) and still get no answer
            String counting = "-i " + bridge + " -s " + address + "/32 -d " + loopback
                    + "/32 -p tcp -m tcp --dport 53 -m comment --comment dy-it-" + RUN_ID;
            sh("iptables -w -I INPUT 1 " + counting);
            try {
                String onResolverPort = fetch(id, loopback, 53);
                assertTrue(onResolverPort.startsWith("FAIL"),
                        "a loopback server on port 53 answered an open sandbox: " + onResolverPort);
                String input = shOut("iptables -w -L INPUT -v -n -x");
                long arrived = input.lines().filter(l -> l.contains("dy-it-" + RUN_ID))
                        .mapToLong(l -> Long.parseLong(l.trim().split("\\s+")[0])).findFirst()
                        .orElseThrow(() -> new AssertionError("the test's counting rule is gone: " + input));
                assertTrue(arrived > 0, "the sandbox's packets to the loopback's port 53 reached the host: " + input);
            } finally {
                sh("iptables -w -D INPUT " + counting);
            }
            String chain = DockerCli.ok("run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add",
                    "NET_RAW", HELPER, "iptables -S DY-OPEN-I-" + bridge);
            assertTrue(chain.contains("-A DY-OPEN-I-" + bridge + " -d 127.0.0.0/8 -j DROP"),
                    "the bridge's input chain has its loopback rule: " + chain);
            assertEquals("OK gateway-53-" + RUN_ID, fetch(id, gateway, 53), "the gateway's port 53 stays open");
            assertEquals("still-here", API.act(id, DockyardApi.run("echo still-here")).getString("content").strip());
        } finally {
            servers.forEach(server -> server.stop(0));
        }
    }

    /**
     * The create-time cost of a network of its own and its rules: the provisioning's create step
     * and the DELETE's answer time of none against open runtimes, alternated (the first open create
     * of a control plane also installs the default bridge's rule once).
     */
    @Test
    void shouldMeasureWhatAnOwnNetworkCosts() {
        List<Long> createOpen = new ArrayList<>();
        List<Long> createNone = new ArrayList<>();
        List<Long> deleteOpen = new ArrayList<>();
        List<Long> deleteNone = new ArrayList<>();
        List<String> measured = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            for (String mode : List.of("open", "none")) {
                JsonObject runtime = provision(mode, null);
                measured.add(runtime.getString("id"));
                Matcher create = Pattern.compile("create (\\d+)").matcher(runtime.getString("statusMessage"));
                assertTrue(create.find(), runtime.getString("statusMessage"));
                long started = System.nanoTime();
                int status = API.delete("runtimes/" + runtime.getString("id")).status();
                long deleted = (System.nanoTime() - started) / 1_000_000;
                assertTrue(status >= 200 && status < 300, "DELETE answered " + status);
                (mode.equals("open") ? createOpen : createNone).add(Long.parseLong(create.group(1)));
                (mode.equals("open") ? deleteOpen : deleteNone).add(deleted);
            }
        }
        MEASURED.add("create step ms, open " + createOpen + " none " + createNone + "; DELETE ms, open " + deleteOpen
                + " none " + deleteNone);
        for (String id : measured) {
            assertFalse(DockerCli.run("network", "inspect", network(id)).exitCode() == 0,
                    "the network of deleted runtime " + id + " is gone");
        }
    }

    /**
     * A host that reboots loses its packet-filter rules; a stopped sandbox is only started again
     * through revive, which puts them back first. The test removes the rules itself, as the reboot
     * would, then hibernates and resumes the runtime.
     */
    @Test
    void shouldPutTheRulesBackWhenAStoppedSandboxIsRevived() {
        String id = provision("none", null).getString("id");
        String bridge = bridgeOf(id);
        String before = rules(bridge);
        DockerCli.ok("run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add", "NET_RAW", HELPER,
                "iptables -D DOCKER-USER -i " + bridge + " -j DOCKYARD-F-" + bridge + " && iptables -D INPUT -i "
                        + bridge + " -j DOCKYARD-I-" + bridge + " && iptables -F DOCKYARD-F-" + bridge
                        + " && iptables -X DOCKYARD-F-" + bridge + " && iptables -F DOCKYARD-I-" + bridge
                        + " && iptables -X DOCKYARD-I-" + bridge);
        assertEquals("", rules(bridge));

        DockyardApi.Answer paused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
        assertEquals(200, paused.status(), paused.body());
        DockyardApi.Answer hibernated = API.post("runtimes/" + id + "/hibernate", Json.createObjectBuilder().build());
        assertEquals("HIBERNATED", hibernated.json().getString("status"), hibernated.body());
        DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
        assertTrue(resumed.status() < 300, resumed.body());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!API.get("runtimes/" + id).json().getString("status").equals("READY") && System.nanoTime() < deadline) {
            sleep(500);
        }
        assertEquals("READY", API.get("runtimes/" + id).json().getString("status"));
        assertEquals(before, rules(bridge), "the same rules are back");
        assertTrue(fetch(id, SERVER, LISTED).startsWith("FAIL"));
    }

    /**
     * A control plane that died between making a sandbox's network (and rules) and its container
     * leaves them behind: the reconciler's sweep removes both once they are older than its grace.
     */
    @Test
    void shouldSweepTheNetworkAndRulesALostSandboxLeft() {
        String sandbox = "dockyard-rt-lost" + RUN_ID;
        String bridge = "dy" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        DockerCli.ok("network", "create", "-o", "com.docker.network.bridge.name=" + bridge,
                "--label", "dev.dockyard.managed=true", "--label", "dev.dockyard.runtime-id=rt-lost" + RUN_ID,
                "--label", "dev.dockyard.conversation-id=it-egress-lost",
                "--label", "dev.dockyard.control-plane=" + System.getProperty("dockyard.instance", "it"),
                "--label", "dev.dockyard.egress=none", "dockyard-net-" + sandbox);
        String chain = "DOCKYARD-F-" + bridge;
        DockerCli.ok("run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add", "NET_RAW", HELPER,
                "iptables -N " + chain + " && iptables -A " + chain + " -j REJECT && iptables -I DOCKER-USER -i "
                        + bridge + " -j " + chain);
        assertFalse(rules(bridge).isEmpty());
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (DockerCli.run("network", "inspect", "dockyard-net-" + sandbox).exitCode() == 0
                && System.nanoTime() < deadline) {
            sleep(2000);
        }
        assertFalse(DockerCli.run("network", "inspect", "dockyard-net-" + sandbox).exitCode() == 0,
                "the orphan network is swept within 90 s");
        assertEquals("", rules(bridge), "with its rules");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldRefuseMalformedPoliciesWithAProblem() {
        for (JsonObjectBuilder sandbox : List.of(
                Json.createObjectBuilder().add("network", "host"),
                Json.createObjectBuilder().add("network", "allowlist"),
                Json.createObjectBuilder().add("network", "allowlist").add("egress", Json.createArrayBuilder()
                        .add("169.254.169.254")),
                Json.createObjectBuilder().add("network", "none").add("egress", Json.createArrayBuilder()
                        .add(SERVER + ":" + LISTED)))) {
            DockyardApi.Answer answer = API.post("runtimes", Json.createObjectBuilder()
                    .add("conversationId", "it-egress-bad-" + UUID.randomUUID()).add("sandbox", sandbox).build());
            assertEquals(400, answer.status(), answer.body());
            assertTrue(answer.contentType().startsWith("application/problem+json"), answer.contentType());
        }
    }

    /** Provisions a runtime of the mode (null: the configured default) and notes its create step's time. */
    private static JsonObject provision(String mode, JsonArrayBuilder egress) {
        return provision(mode, egress, null);
    }

    /** The same on the named node (null: placement's choice). */
    private static JsonObject provision(String mode, JsonArrayBuilder egress, String node) {
        JsonObjectBuilder sandbox = Json.createObjectBuilder();
        if (mode != null) {
            sandbox.add("network", mode);
        }
        if (egress != null) {
            sandbox.add("egress", egress);
        }
        JsonObjectBuilder body = Json.createObjectBuilder()
                .add("conversationId", "it-egress-" + UUID.randomUUID()).add("sandbox", sandbox);
        if (node != null) {
            body.add("node", node);
        }
        DockyardApi.Answer answer = API.provision(body.build(), 180);
        JsonObject runtime = answer.json();
        if (runtime.containsKey("id")) {
            RUNTIMES.add(runtime.getString("id"));
        }
        assertEquals(201, answer.status(), answer.body());
        assertEquals("READY", runtime.getString("status"), answer.body());
        Matcher create = Pattern.compile("create (\\d+)").matcher(runtime.getString("statusMessage", ""));
        MEASURED.add((mode == null ? "open" : mode) + ": create step " + (create.find() ? create.group(1) : "?")
                + " ms; " + runtime.getString("statusMessage", ""));
        return runtime;
    }

    /** What the sandbox gets from http://host:port/ within 5 s: "OK body" or "FAIL why". */
    private static String fetch(String id, String host, int port) {
        String answer = python(id, String.join("\n",
                "import urllib.request",
                "try:",
                "    print('OK', urllib.request.urlopen('http://" + host + ":" + port + "/', timeout=5).read()"
                        + ".decode().strip())",
                "except Exception as e:",
                "    print('FAIL', type(e).__name__, e)"));
        System.out.println("[egress-fetch] " + id + " -> " + host + ":" + port + ": " + answer);
        return answer;
    }

    /** A shell command's output in the sandbox, trimmed (whatever its exit code). */
    private static String shell(String id, String command) {
        return API.act(id, DockyardApi.run(command)).getString("content").strip();
    }

    private static String python(String id, String program) {
        String encoded = Base64.getEncoder().encodeToString(program.getBytes(StandardCharsets.UTF_8));
        return API.act(id, DockyardApi.run("echo " + encoded + " | base64 -d | python3 -")).getString("content")
                .strip();
    }

    /** A server the test starts on the host's end of the sandbox's bridge does not answer the sandbox. */
    private static void assertHostUnreachable(String id) throws IOException {
        assertHostUnreachable(MAIN, id);
    }

    /** The same for a sandbox on the engine at {@code engine} (null: the main one). */
    private static void assertHostUnreachable(String engine, String id) throws IOException {
        String gateway = gatewayOf(engine, id);
        HttpServer host = hostServer(gateway, "host-" + RUN_ID);
        try {
            String answer = fetch(id, gateway, host.getAddress().getPort());
            assertTrue(answer.startsWith("FAIL"), "the host's own address answered the sandbox: " + answer);
        } finally {
            host.stop(0);
        }
    }

    /** An HTTP server of the test's own on one of the host's addresses, answering {@code token}. */
    private static HttpServer hostServer(String address, String token) throws IOException {
        return hostServer(address, 0, token);
    }

    private static HttpServer hostServer(String address, int port, String token) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.createContext("/", exchange -> {
            byte[] body = token.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    /** A docker command against the engine at {@code engine} (null: the main one) that must succeed. */
    private static String docker(String engine, String... args) {
        List<String> command = new ArrayList<>();
        if (engine != null) {
            command.addAll(List.of("-H", engine));
        }
        command.addAll(List.of(args));
        return DockerCli.ok(command.toArray(String[]::new));
    }

    private static String network(String id) {
        return "dockyard-net-dockyard-" + id;
    }

    private static String container(String id) {
        return "dockyard-" + id;
    }

    private static String bridgeOf(String id) {
        return bridgeOf(MAIN, id);
    }

    private static String bridgeOf(String engine, String id) {
        return docker(engine, "network", "inspect", "-f", "{{index .Options \"com.docker.network.bridge.name\"}}",
                network(id));
    }

    private static String gatewayOf(String engine, String id) {
        return docker(engine, "network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", network(id));
    }

    /** The host's rules for the bridge (jumps and its chains), read through the engine with the helper image. */
    private static String rules(String bridge) {
        return rules(MAIN, bridge);
    }

    /** The same, read through the engine at {@code engine}: its helper image edits the same host's tables. */
    private static String rules(String engine, String bridge) {
        return docker(engine, "run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add", "NET_RAW",
                HELPER, "{ iptables -S DOCKER-USER; iptables -S INPUT; iptables -S DOCKYARD-F-" + bridge
                        + " 2>/dev/null; iptables -S DOCKYARD-I-" + bridge + " 2>/dev/null; } 2>/dev/null | grep -- '" + bridge
                        + "' || true");
    }

    /** Packets the last rule of the bridge's input chain (everything else to the host) has refused. */
    private static long refusedByTheHost(String bridge) {
        String last = DockerCli.ok("run", "--rm", "--network", "host", "--cap-add", "NET_ADMIN", "--cap-add",
                "NET_RAW", HELPER, "iptables -L DOCKYARD-I-" + bridge + " -v -x -n 2>/dev/null | tail -n 1");
        assertTrue(last.contains("REJECT"), "the input chain ends with its refusal: " + last);
        return Long.parseLong(last.strip().split("\\s+")[0]);
    }

    /**
     * The copy (a fork, a migrated runtime) is on a network of its own, only that one, labelled with
     * the source's policy, behind rules that are the source's for its own bridge, and its only DNS
     * server is its own gateway.
     */
    private static void assertOwnNetworkWithTheSameRules(String engine, String copy, String policy,
                                                         String sourceBridge, String sourceRules) {
        assertEquals(network(copy), docker(engine, "inspect", "-f",
                "{{range $name, $n := .NetworkSettings.Networks}}{{$name}} {{end}}", container(copy)).strip(),
                "the copy is on its own network only");
        assertEquals(policy, docker(engine, "network", "inspect", "-f",
                "{{index .Labels \"dev.dockyard.egress\"}}", network(copy)), "its network carries the policy");
        String bridge = bridgeOf(engine, copy);
        assertNotEquals(sourceBridge, bridge, "a bridge of its own");
        assertFalse(sourceRules.isBlank(), "the source had rules");
        assertEquals(sourceRules.replace(sourceBridge, bridge), rules(engine, bridge),
                "the source's rules, for the copy's bridge");
        assertEquals("[\"" + gatewayOf(engine, copy) + "\"]",
                docker(engine, "inspect", "-f", "{{json .HostConfig.Dns}}", container(copy)),
                "its only DNS server is its own gateway");
    }

    /** Forks the runtime (POST /runtimes/{id}/fork) and answers the fork, READY. */
    private static String fork(String source) {
        DockyardApi.Answer forked = API.post("runtimes/" + source + "/fork", Json.createObjectBuilder()
                .add("conversationId", "it-egress-fork-" + UUID.randomUUID()).build().toString(), "wait=120");
        if (forked.json().containsKey("id")) {
            RUNTIMES.add(forked.json().getString("id"));
        }
        assertEquals(201, forked.status(), forked.body());
        assertEquals("READY", forked.json().getString("status"), forked.body());
        return forked.json().getString("id");
    }

    private static void sh(String command) throws IOException, InterruptedException {
        shOut(command);
    }

    /** A host command's output (stdout and stderr); it must succeed within 30 s. */
    private static String shOut(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish: " + command);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError(command + " failed: " + out);
        }
        return out;
    }
}
