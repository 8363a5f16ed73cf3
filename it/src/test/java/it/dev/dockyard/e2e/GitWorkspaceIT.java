package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A workspace prepared from a git repository: a bare repository served over HTTP (Basic auth
 * with a token) by a container this test starts, on an address the test assigns it through a veth
 * pair (off the engine's bridge: an open sandbox reaches no neighbour there, only what lies beyond
 * the host, as a git host on the internet does); the runtime clones it with the user's stored
 * credential through git's credential helper, switches to a new branch, runs the repository's
 * setup script and serves its microagents. The token must show up nowhere but in the helper's file.
 */
class GitWorkspaceIT {

    private static final DockyardApi ADMIN = new DockyardApi();
    private static final String TOKEN = "gitcanary-" + UUID.randomUUID();
    private static final String SERVER = "dockyard-it-gitserver-" + UUID.randomUUID().toString().substring(0, 8);
    private static final String SETUP = String.join("\n",
            "set -e",
            "mkdir -p /tmp/src && cd /tmp/src && git init -q -b main",
            "git config user.email it@dockyard.test && git config user.name it",
            "mkdir -p .openhands/microagents",
            "printf -- '---\\nname: repo-guide\\ntype: repo\\n---\\nRun make test.\\n' > .openhands/microagents/repo.md",
            "printf -- '---\\ntriggers:\\n  - docker\\n---\\nNo docker daemon here.\\n' > .openhands/microagents/docker.md",
            "printf '#!/bin/bash\\necho setup-ran > setup-marker.txt\\n' > .openhands/setup.sh",
            // longer than the 30,000 characters of one command's output: must still come back whole
            "mkdir -p .dockyard/microagents && seq -f 'knowledge line %g' 1 2500 > .dockyard/microagents/long.md",
            "echo hello > README.md && git add -A && git commit -q -m init",
            "git clone -q --bare /tmp/src /tmp/srv/repo.git && git -C /tmp/srv/repo.git update-server-info",
            // a repository whose setup script prints the runtime's secrets, then fails
            "mkdir -p /tmp/leaky/.openhands && cd /tmp/leaky && git init -q -b main",
            "git config user.email it@dockyard.test && git config user.name it",
            "printf '#!/bin/bash\\necho \"env $LEAKY_SECRET llm $LLM_API_KEY\"\\nexit 3\\n' > .openhands/setup.sh",
            "git add -A && git commit -q -m leaky",
            "git clone -q --bare /tmp/leaky /tmp/srv/leaky.git && git -C /tmp/srv/leaky.git update-server-info",
            "exec python3 -c \"$SERVER_PY\"");
    private static final String SERVER_PY = String.join("\n",
            "import base64, functools, http.server, os",
            "TOKEN = os.environ['TOKEN']",
            "class Handler(http.server.SimpleHTTPRequestHandler):",
            "    def do_GET(self):",
            "        auth = self.headers.get('Authorization', '')",
            "        ok = auth.startswith('Basic ') and base64.b64decode(auth[6:]).decode().partition(':')[2] == TOKEN",
            "        if not ok:",
            "            self.send_response(401)",
            "            self.send_header('WWW-Authenticate', 'Basic realm=\"it\"')",
            "            self.send_header('Content-Length', '0')",
            "            self.end_headers()",
            "            return",
            "        super().do_GET()",
            "    def log_message(self, *args):",
            "        pass",
            "http.server.ThreadingHTTPServer(('0.0.0.0', 8000), functools.partial(Handler, directory='/tmp/srv'))"
                    + ".serve_forever()");

    /** The host's end of the server's veth pair, and the addresses the test gives both ends. */
    private static final String HOST_END = "dygit-h";
    private static final String SERVER_END = "dygit-c";
    private static final String HOST_ADDRESS = "198.18.77.1";
    private static final String SERVER_ADDRESS = "198.18.77.2";

    private static String url;
    private static DockyardApi user;

    @BeforeAll
    static void serveARepository() throws Exception {
        DockerCli.ok("run", "-d", "--rm", "--network", "none", "--name", SERVER, "--entrypoint", "/bin/bash",
                "-e", "TOKEN=" + TOKEN, "-e", "SERVER_PY=" + SERVER_PY, "dockyard/sandbox:latest", "-c", SETUP);
        String pid = DockerCli.inspect(SERVER, "{{.State.Pid}}");
        sh("ip link del " + HOST_END + " 2>/dev/null; ip link add " + HOST_END + " type veth peer name " + SERVER_END
                + " && ip link set " + SERVER_END + " netns " + pid
                + " && ip addr add " + HOST_ADDRESS + "/30 dev " + HOST_END + " && ip link set " + HOST_END + " up"
                + " && nsenter -t " + pid + " -n ip addr add " + SERVER_ADDRESS + "/30 dev " + SERVER_END
                + " && nsenter -t " + pid + " -n ip link set " + SERVER_END + " up"
                + " && nsenter -t " + pid + " -n ip link set lo up");
        url = "http://" + SERVER_ADDRESS + ":8000/repo.git";
        // the server is up once it answers (401 without the token)
        for (int i = 0; i < 100; i++) {
            DockerCli.Result probe = DockerCli.run("exec", SERVER, "python3", "-c", "import urllib.request as u\n"
                    + "try:\n  u.urlopen('http://127.0.0.1:8000/repo.git/info/refs')\nexcept Exception as e:\n"
                    + "  print(getattr(e, 'code', 'down'))");
            if (probe.output().contains("401")) {
                break;
            }
            Thread.sleep(100);
        }
        String userId = "git-" + UUID.randomUUID().toString().substring(0, 8);
        String key = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId).build()).json()
                .getString("apiKey");
        user = ADMIN.withKey(key);
        assertEquals(204, user.put("credentials/GIT_TOKEN", Json.createObjectBuilder().add("type", "secret")
                .add("value", TOKEN).build()).status());
    }

    @AfterAll
    static void stopTheServer() throws Exception {
        DockerCli.run("rm", "-f", SERVER);
        sh("ip link del " + HOST_END + " 2>/dev/null; true");
    }

    private static void sh(String command) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, command + ": " + out);
    }

    @Test
    void shouldCloneWithTheTokenNowhereButTheHelperAndServeTheMicroagents() throws Exception {
        DockyardApi.Answer answer = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-git-" + UUID.randomUUID())
                .add("repository", Json.createObjectBuilder().add("url", url).add("branch", "main")
                        .add("newBranch", "dockyard/feature").add("credential", "GIT_TOKEN")).build(), 180);
        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().getString("id");
        try {
            assertTrue(answer.json().getString("statusMessage").contains("repository "), answer.body());
            assertEquals("dockyard/feature\nhello\nsetup-ran", run(user, id,
                    "cd /workspace/repo && git branch --show-current && cat README.md setup-marker.txt"));
            assertEquals(url, run(user, id, "git -C /workspace/repo remote get-url origin"));

            // the token: only in the helper's file; not in the environment, processes, git config or anywhere else
            // blocking: the search of the whole disk printed nothing for over 10 s on a busy CI machine,
            // and an ordinary command is answered "still running" with empty output after that
            assertEquals("/opt/dockyard/run/git-token", user.act(id, DockyardApi.runBlocking(
                    "grep -rlF -f /opt/dockyard/run/git-token / --exclude-dir=proc --exclude-dir=sys "
                    + "--exclude-dir=dev 2>/dev/null; true", 300)).getString("content").strip());
            assertEquals("0 0 unset", run(user, id, "echo $(env | grep -cF -f /opt/dockyard/run/git-token) "
                    + "$(ps -eo args | grep -cF -f /opt/dockyard/run/git-token) ${GIT_TOKEN:-unset}"));
            // git offers it to the repository's server only
            assertEquals("credential." + url.substring(0, url.indexOf("/repo.git")) + ".helper", run(user, id,
                    "git config --global --name-only --get-regexp '^credential\\.'"));
            assertEquals("0", run(user, id, "printf 'protocol=https\\nhost=other.example\\n\\n' | GIT_TERMINAL_PROMPT=0 "
                    + "git credential fill 2>&1 | grep -cF -f /opt/dockyard/run/git-token; true"));
            assertFalse(DockerCli.ok("inspect", "dockyard-" + id).contains(TOKEN));
            assertFalse(DockerCli.run("logs", "dockyard-" + id).output().contains(TOKEN));
            assertFalse(Files.readString(Path.of(System.getProperty("dockyard.server-log"))).contains(TOKEN));
            assertFalse(user.get("runtimes/" + id).body().contains(TOKEN));

            JsonObject microagents = user.get("runtimes/" + id + "/microagents").json();
            List<JsonObject> agents = microagents.getJsonArray("microagents").getValuesAs(JsonObject.class);
            assertEquals(3, agents.size(), microagents.toString());
            JsonObject longOne = agents.stream().filter(a -> a.getString("name").equals("long")).findFirst().orElseThrow();
            String expected = IntStream.rangeClosed(1, 2500).mapToObj(i -> "knowledge line " + i)
                    .collect(Collectors.joining("\n"));
            assertTrue(expected.length() > 40_000);
            assertEquals(expected, longOne.getString("content"));
            JsonObject docker = agents.stream().filter(a -> a.getString("name").equals("docker")).findFirst().orElseThrow();
            assertEquals("knowledge", docker.getString("type"));
            assertEquals("docker", docker.getJsonArray("triggers").getString(0));
            assertEquals("No docker daemon here.", docker.getString("content"));
            JsonObject guide = agents.stream().filter(a -> a.getString("name").equals("repo-guide")).findFirst().orElseThrow();
            assertEquals("repo", guide.getString("type"));
        } finally {
            user.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldFailAtTheRepositoryStepWithoutTheToken() {
        DockyardApi.Answer answer = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-git-denied-" + UUID.randomUUID())
                .add("repository", Json.createObjectBuilder().add("url", url)).build(), 180);
        JsonObject runtime = answer.json();
        try {
            assertEquals("ERROR", runtime.getString("status"), answer.body());
            String message = runtime.getString("statusMessage");
            assertTrue(message.startsWith("Provisioning failed at step 'repository': clone " + url + " failed"), message);
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + runtime.getString("id")));
        } finally {
            user.delete("runtimes/" + runtime.getString("id"));
        }
        assertEquals(400, user.post("runtimes", Json.createObjectBuilder().add("conversationId", "x")
                .add("repository", Json.createObjectBuilder().add("url", "http://someone:" + TOKEN + "@host/r.git"))
                .build()).status());
    }

    @Test
    void shouldKeepSecretsPrintedByAFailingSetupScriptOutOfEveryMessage() throws Exception {
        String envSecret = "envcanary-" + UUID.randomUUID();
        String llmSecret = "llmcanary-" + UUID.randomUUID();
        DockyardApi.Answer answer = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-git-leaky-" + UUID.randomUUID())
                .add("llm", Json.createObjectBuilder().add("model", "m").add("apiKey", llmSecret))
                .add("sandbox", Json.createObjectBuilder().add("env", Json.createObjectBuilder()
                        .add("LEAKY_SECRET", envSecret)))
                .add("repository", Json.createObjectBuilder().add("url", url.replace("repo.git", "leaky.git"))
                        .add("credential", "GIT_TOKEN")).build(), 180);
        JsonObject runtime = answer.json();
        String id = runtime.getString("id");
        try {
            assertEquals("ERROR", runtime.getString("status"), answer.body());
            String message = runtime.getString("statusMessage");
            // the script's output explains the failure, with the secrets it printed masked
            assertTrue(message.contains("env [redacted] llm [redacted]"), message);
            String events = user.events(id, Duration.ofSeconds(5));
            assertTrue(events.contains("[redacted]"), events);
            for (String secret : List.of(envSecret, llmSecret, TOKEN)) {
                assertFalse(answer.body().contains(secret));
                assertFalse(user.get("runtimes/" + id).body().contains(secret));
                assertFalse(user.get("runtimes?conversationId=" + runtime.getString("conversationId")).body()
                        .contains(secret));
                assertFalse(events.contains(secret), events);
                assertFalse(Files.readString(Path.of(System.getProperty("dockyard.server-log"))).contains(secret));
            }
        } finally {
            user.delete("runtimes/" + id);
        }
    }

    private static String run(DockyardApi api, String runtimeId, String command) {
        JsonObject observation = api.act(runtimeId, DockyardApi.run(command));
        return observation.getString("content").strip();
    }
}
