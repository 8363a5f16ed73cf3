package it.dev.dockyard.soak;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import it.dev.dockyard.support.Forwarder;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.ZipInputStream;

/**
 * Dockyard under load and faults: agents that loop like coding agents (provision from a pool or
 * cold, run commands, write files and read them back, edit, upload and download, pause and resume,
 * fork or snapshot, delete) while faults are injected one after another (kill -9 of the control
 * plane and its restart, kill -9 of an executor inside a sandbox, a burst of provisions beyond a
 * user's quota, clients that drop mid-upload and mid-stream). At the end it accounts: every write
 * an agent got an acknowledgement for is checked by its checksum, no runtime may be stuck in a
 * transient status, none duplicated for a conversation, no sandbox, volume or network left behind,
 * no 5xx but a 503 with {@code Retry-After}, and the server's heap, threads and file descriptors
 * back near where they started. Prints a table per fault and the list of what failed.
 *
 * <p>Full runs of {@code docker/soak.sh} use the two-control-plane profile: two control planes on
 * one PostgreSQL database behind a load balancer the harness runs ({@link Forwarder}), and a second
 * engine node reached through a forwarder it owns. There the control-plane kill hits the one that
 * holds the reconciler's lease, and two more faults come: the database stopped for 30 s, and the
 * second node cut off for 60 s.
 *
 * <p>JDK only, so that it runs as a single source file ({@code docker/soak.sh} starts a control
 * plane of its own for it) and from {@code SoakSmokeIT} on the test run's disposable control plane.
 * Traffic goes to the control plane on loopback only; faults touch only processes of sandboxes the
 * soak created and the server it was given.
 */
public final class Soak {

    /** The control plane under test, as far as the faults need it. */
    public interface Server {

        /** Its own root URL (not the load balancer's in front of it). */
        String url();

        /** The server's process id. */
        long pid() throws Exception;

        /** SIGKILL, and returns once the process is gone. */
        void killNine() throws Exception;

        /** Starts it again (same database) and returns once it answers. */
        void start() throws Exception;
    }

    /** How long, how many agents, how much each does, how often a fault comes. */
    public record Settings(Duration length, int agents, int minActions, int maxActions, Duration faultEvery,
                           int poolSize, long seed, boolean quick) {

        /**
         * The issue's default: 30 minutes, 40 agents. A fault every 2 minutes (the issue says about
         * 3): eight kinds in the two-control-plane profile, and each of most comes twice in 30 minutes.
         */
        public static Settings full(int minutes, int agents) {
            return new Settings(Duration.ofMinutes(minutes), agents, 20, 100, Duration.ofMinutes(2), 8,
                    System.nanoTime(), false);
        }

        /**
         * A short run for CI: three agents for 75 s, every kind of fault once (the run goes on past
         * its length until each ran, two minutes at most). Its latency and server figures are printed,
         * not judged: two and a half minutes beside other suites on two cores say little of either.
         */
        public static Settings smoke() {
            return new Settings(Duration.ofSeconds(75), 3, 5, 15, Duration.ofSeconds(12), 2, System.nanoTime(), true);
        }
    }

    private static final Pattern ID = Pattern.compile("\"id\":\"(rt-[0-9a-f]+)\"");
    private static final Pattern STATUS = Pattern.compile("\"status\":\"([A-Z_]+)\"");
    // possessive: a message of thousands of characters (a stack trace) overflowed the stack of a greedy one
    private static final Pattern MESSAGE = Pattern.compile("\"statusMessage\":\"((?:[^\"\\\\]++|\\\\.)*+)\"");
    private static final Pattern API_KEY = Pattern.compile("\"apiKey\":\"([^\"]+)\"");
    private static final Pattern SNAPSHOT_ID = Pattern.compile("\"id\":\"([A-Za-z0-9_.:@-]+)\"");
    /** An observation of a command the shell never completed: no exit code, its shell gone. */
    private static final Pattern NOT_RUN = Pattern.compile("\"exit_code\":\\s*-1\\b");
    private static final Pattern SHA = Pattern.compile("([0-9a-f]{64})");
    private static final Set<String> TRANSIENT = Set.of("STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED");
    private static final String POOL = "soak";

    private final String base;
    /** Runtimes' services (E2B's envd among them): the API's port + 1000, as the harness's servers are set up. */
    private final String services;
    private final String adminKey;
    private final String instance;
    /** The control planes: one, or two behind {@link #front} (the two-control-plane profile). */
    private final List<Server> servers;
    /** The load balancer in front of two control planes (their APIs, and their services' ports); null with one. */
    private Forwarder front;
    private Forwarder frontServices;
    /** The second engine node's forwarder, which the harness cuts and restores; null without one. */
    private volatile Forwarder node2;
    private int node2Port;
    /** The database of the harness's own PostgreSQL cluster, which it stops and starts; null on embedded Derby. */
    private String database;
    private final Settings settings;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final long startedAt = System.nanoTime();
    private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Window> windows = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
    /** Live runtimes of the agents (id → its agent's ledger), for the faults to pick from. */
    private final Map<String, Ledger> live = new ConcurrentHashMap<>();
    /** Every runtime id the soak caused, and every conversation it provisioned. */
    private final Set<String> runtimeIds = ConcurrentHashMap.newKeySet();
    private final Set<String> conversations = ConcurrentHashMap.newKeySet();
    private final AtomicInteger writesAcknowledged = new AtomicInteger();
    private final AtomicInteger writesChecked = new AtomicInteger();
    private final AtomicInteger iterations = new AtomicInteger();
    private volatile boolean serverDown;
    /** The fault being injected, if one is; and when the last one ended. */
    private volatile String underway;
    private volatile long lastFaultEnded = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);
    /** Set once the last fault was injected: agents go on until then, whatever their deadline. */
    private volatile boolean faultsDone;
    /**
     * The running server's resources once warm: measured before the first fault (the agents have
     * been at work for a fault interval) and again before the next fault after each restart, so
     * that the end is compared with the same process warmed up, not with a server that has seen no
     * request yet.
     */
    private final Map<String, Resources> baselines = new ConcurrentHashMap<>();
    /** The servers (by URL) whose baseline is to be measured before the next fault. */
    private final Set<String> baselineDue = ConcurrentHashMap.newKeySet();
    /** When a restarted server counts as warm (System.nanoTime): three minutes after its restart. */
    private final Map<String, Long> warmAt = new ConcurrentHashMap<>();
    /**
     * The restart of the control plane the last kill took down, in the two-control-plane profile:
     * under way beside the next faults (it takes minutes beside the survivor's load), which do not
     * need that server; a kill or a database stop waits for it.
     */
    private volatile CompletableFuture<Void> restarting = CompletableFuture.completedFuture(null);
    private String userKey;

    /**
     * @param base     the control plane's root URL, e.g. {@code http://127.0.0.1:9080}
     * @param instance its {@code dockyard.instance}: the label its sandboxes carry
     */
    public Soak(String base, String adminKey, String instance, Server server, Settings settings) {
        this(base, adminKey, instance, List.of(server), settings);
    }

    /** Several control planes of one deployment, all reached through {@code base} (a load balancer). */
    public Soak(String base, String adminKey, String instance, List<Server> servers, Settings settings) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        URI api = URI.create(this.base);
        this.services = System.getProperty("soak.services", api.getScheme() + "://" + api.getHost() + ":" + (api.getPort() + 1000));
        this.adminKey = adminKey;
        this.instance = instance;
        this.servers = List.copyOf(servers);
        this.settings = settings;
        servers.forEach(s -> baselineDue.add(s.url()));
    }

    /**
     * The two-control-plane profile's load balancer: the API's and the services' forwarders, each
     * across the servers' ports in turn. The control-plane kill drains the victim from both first,
     * as a balancer's health check would, and admits it again once it is ready.
     */
    public Soak behind(Forwarder api, Forwarder services) {
        this.front = api;
        this.frontServices = services;
        return this;
    }

    /** A second engine node the servers reach through this forwarder on this port: cut for 60 s as a fault. */
    public Soak withSecondNode(Forwarder forwarder, int port, String dockerHost) {
        this.node2 = forwarder;
        this.node2Port = port;
        engines = List.of("", dockerHost);
        return this;
    }

    /** The servers' PostgreSQL cluster is the harness's own (docker/ensure-postgresql.sh with its directory): stopped for 30 s as a fault. */
    public Soak onPostgres(String database) {
        this.database = database;
        return this;
    }

    /** What one run found. */
    public record Report(String table, List<String> failures) {

        public boolean passed() {
            return failures.isEmpty();
        }
    }

    /** Runs the agents and the faults for the settings' length, then accounts; prints as it goes. */
    public Report run() throws Exception {
        say("soak " + run + ": " + settings.agents() + " agents for " + settings.length().toSeconds() + " s, a fault every "
                + settings.faultEvery().toSeconds() + " s, seed " + settings.seed());
        awaitReady(Duration.ofMinutes(5));
        userKey = newUser("soak-" + run, 400);
        if (settings.poolSize() > 0) {
            expect(admin("PUT", "/api/v1/pools/" + POOL, "{\"size\":" + settings.poolSize() + ",\"maxBooting\":2}"),
                    "declare the pool", 200, 201);
        }
        long deadline = System.nanoTime() + settings.length().toNanos();
        ExecutorService agents = Executors.newFixedThreadPool(settings.agents());
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < settings.agents(); i++) {
            Agent agent = new Agent(i, new Random(settings.seed() + i));
            running.add(agents.submit(() -> agent.loop(deadline)));
        }
        try {
            injectFaults(deadline, new Random(settings.seed() - 1));
        } finally {
            faultsDone = true;
        }
        try {
            // measured with both servers up: a restart still under way ends first (its own bound)
            restarting.get(16, TimeUnit.MINUTES);
        } catch (Exception e) {
            failures.add("the killed control plane's restart did not end: " + e);
        }
        agents.shutdown();
        for (Future<?> agent : running) {
            try {
                // an iteration under way finishes (its delete included): bounded by its own waits
                agent.get(10, TimeUnit.MINUTES);
            } catch (Exception e) {
                failures.add("an agent did not finish: " + e);
            }
        }
        agents.shutdownNow();
        if (settings.poolSize() > 0) {
            expect(admin("DELETE", "/api/v1/pools/" + POOL, null), "remove the pool", 204, 404);
        }
        killAbandonedE2b();
        deleteLeftoverSnapshots();
        account();
        String table = table();
        System.out.println(table);
        failures.forEach(f -> System.out.println("FAILED: " + f));
        return new Report(table, List.copyOf(failures));
    }

    // ---------------------------------------------------------------- agents

    /** A file an agent wrote: its path, what it holds, and the checksums it may have. */
    private static final class Ledger {
        final String runtimeId;
        /** Through OpenHands' Remote Runtime API: the runtime's url and session key; null through /api/v1. */
        final String url;
        final String sessionKey;
        /** Through E2B's API: the sandbox's id and its envd access token; null otherwise. */
        final String sandboxId;
        final String envdToken;
        final Map<String, Set<String>> acknowledged = new ConcurrentHashMap<>();
        final Map<String, String> contents = new ConcurrentHashMap<>();
        volatile boolean executorKilled;

        Ledger(String runtimeId) {
            this(runtimeId, null, null);
        }

        Ledger(String runtimeId, String url, String sessionKey) {
            this(runtimeId, url, sessionKey, null, null);
        }

        private Ledger(String runtimeId, String url, String sessionKey, String sandboxId, String envdToken) {
            this.runtimeId = runtimeId;
            this.url = url;
            this.sessionKey = sessionKey;
            this.sandboxId = sandboxId;
            this.envdToken = envdToken;
        }

        static Ledger e2b(String sandboxId, String envdToken) {
            // E2B's sandbox id is the runtime id without its dash
            return new Ledger("rt-" + sandboxId.substring(2), null, null, sandboxId, envdToken);
        }

        boolean remote() {
            return url != null;
        }

        boolean e2b() {
            return sandboxId != null;
        }
    }

    /** One simulated coding agent: a conversation after another until the deadline. */
    private final class Agent {
        private final int index;
        private final Random random;
        private int n;

        Agent(int index, Random random) {
            this.index = index;
            this.random = random;
        }

        void loop(long deadline) {
            while (System.nanoTime() < deadline || !faultsDone) {
                try {
                    iteration(deadline);
                } catch (Exception e) {
                    failures.add("agent " + index + ": " + e);
                    sleep(1000);
                }
            }
        }

        private void iteration(long deadline) throws Exception {
            String conversation = "soak-" + run + "-a" + index + "-" + n++;
            conversations.add(conversation);
            iterations.incrementAndGet();
            Optional<Ledger> started;
            int way = random.nextInt(4);
            if (way == 0) {
                // a quarter through OpenHands' Remote Runtime API, as its clients call it
                started = startRemote(conversation);
            } else if (way == 1) {
                // a quarter through E2B's API and envd, as E2B's SDKs call them
                started = createE2b(conversation);
            } else {
                // a third asks for settings no pool has: a cold boot
                String sandbox = random.nextInt(3) == 0 ? "{\"memoryMb\":768}" : "{}";
                started = provision(conversation, "{\"conversationId\":\"" + conversation + "\",\"sandbox\":"
                        + sandbox + "}", "runtimes").map(Ledger::new);
            }
            if (started.isEmpty()) {
                return;
            }
            Ledger ledger = started.get();
            Optional<String> id = Optional.of(ledger.runtimeId);
            live.put(id.get(), ledger);
            try {
                int actions = settings.minActions() + random.nextInt(settings.maxActions() - settings.minActions() + 1);
                boolean forked = false;
                for (int i = 0; i < actions && (System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(30) || !faultsDone); i++) {
                    if (!act(ledger, i)) {
                        break;
                    }
                    if (!forked && !ledger.remote() && !ledger.e2b() && random.nextInt(actions * 4) == 0) {
                        forked = true;
                        copy(ledger);
                    }
                }
                verify(ledger, ledger.runtimeId, "before delete");
            } finally {
                live.remove(id.get());
                if (ledger.remote()) {
                    stopRemote(ledger.runtimeId);
                } else if (ledger.e2b()) {
                    expect(sendWithRetries("e2b kill", () -> HttpRequest.newBuilder(URI.create(base + "/e2b/sandboxes/"
                            + ledger.sandboxId)).header("X-API-Key", userKey).DELETE()), "kill an E2B sandbox", 204, 404);
                } else {
                    delete(id.get());
                }
            }
        }

        /** One action; false once the runtime has ended (ERROR) and the agent moves on. */
        private boolean act(Ledger ledger, int i) throws Exception {
            if (ledger.e2b()) {
                return actE2b(ledger, i);
            }
            String id = ledger.runtimeId;
            int kind = random.nextInt(100);
            if (kind < 35) {
                String token = "tok" + random.nextInt(1_000_000);
                Answer answer = action(ledger, "{\"action\":\"run\",\"args\":{\"command\":\"echo " + token + "\"}}");
                return answered(ledger, answer, "echo", token);
            }
            if (kind < 60) {
                String path = "/workspace/soak/w-" + i + ".txt";
                // OpenHands' write ends every line it was given with a newline: the file is content + "\n"
                String content = text(random, 64 + random.nextInt(16_000)) + "MARK-" + i;
                Answer answer = action(ledger, "{\"action\":\"write\",\"args\":{\"path\":\"" + path + "\",\"content\":\""
                        + content.replace("\n", "\\n") + "\"}}");
                if (answer.status() == 200 && answer.body().contains("\"observation\":\"write\"")
                        && !answer.body().contains("\"error\"")) {
                    ledger.acknowledged.put(path, Set.of(sha256(content + "\n")));
                    ledger.contents.put(path, content + "\n");
                    writesAcknowledged.incrementAndGet();
                    return checkOne(ledger, path);
                }
                return answered(ledger, answer, "write", null);
            }
            if (kind < 75 && !ledger.contents.isEmpty()) {
                String path = List.copyOf(ledger.contents.keySet()).get(random.nextInt(ledger.contents.size()));
                String before = ledger.contents.get(path);
                Matcher mark = Pattern.compile("MARK-[0-9a-z-]+").matcher(before);
                if (!mark.find()) {
                    return true;
                }
                String replacement = mark.group() + "-e" + i;
                String after = before.replace(mark.group(), replacement);
                Answer answer = action(ledger, "{\"action\":\"edit\",\"args\":{\"path\":\"" + path
                        + "\",\"command\":\"str_replace\",\"old_str\":\"" + mark.group() + "\",\"new_str\":\""
                        + replacement + "\"}}");
                boolean acknowledged = answer.status() == 200 && answer.body().contains("\"observation\":\"edit\"")
                        && !answer.body().contains("\"error\"");
                // unacknowledged, the edit may or may not have happened: either content is right, and
                // the file is edited no more (a later edit's mark would match inside either)
                ledger.acknowledged.put(path, acknowledged ? Set.of(sha256(after)) : Set.of(sha256(before), sha256(after)));
                if (acknowledged) {
                    ledger.contents.put(path, after);
                } else {
                    ledger.contents.remove(path);
                }
                if (acknowledged) {
                    writesAcknowledged.incrementAndGet();
                    return true;
                }
                return answered(ledger, answer, "edit", null);
            }
            if (kind < 90 && !ledger.remote()) {
                String name = "u-" + i + ".txt";
                String content = text(random, 64 + random.nextInt(64_000));
                Answer answer = upload(id, "/workspace/soak/up", name, content.getBytes(StandardCharsets.UTF_8));
                if (answer.status() != 200) {
                    return answered(ledger, answer, "upload", null);
                }
                String path = "/workspace/soak/up/" + name;
                ledger.acknowledged.put(path, Set.of(sha256(content)));
                writesAcknowledged.incrementAndGet();
                Answer download = send("download", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id
                        + "/files?path=" + path)).header("X-API-Key", userKey).GET(), true);
                if (download.status() == 200) {
                    byte[] got = unzipOne(download.bytes());
                    writesChecked.incrementAndGet();
                    if (got == null || !sha256(new String(got, StandardCharsets.UTF_8)).equals(sha256(content))) {
                        failures.add("lost write: " + id + " " + path + " downloaded differs from what was uploaded");
                    }
                }
                return true;
            }
            if (kind < 95) {
                String body = ledger.remote() ? "{\"runtime_id\":\"" + id + "\"}" : "{}";
                Answer paused = send("pause", post(ledger.remote() ? "/runtime-api/pause" : "/api/v1/runtimes/" + id + "/pause",
                        body, userKey), false);
                sleep(100 + random.nextInt(400));
                Answer resumed = send("resume", post(ledger.remote() ? "/runtime-api/resume" : "/api/v1/runtimes/" + id
                        + "/resume", body, userKey), false);
                if (paused.status() == 200 && resumed.status() != 200) {
                    return awaitUsable(ledger, "resume answered " + resumed.status() + " " + resumed.clipped());
                }
                return true;
            }
            return ledger.acknowledged.isEmpty()
                    || checkOne(ledger, List.copyOf(ledger.acknowledged.keySet()).get(random.nextInt(ledger.acknowledged.size())));
        }

        /**
         * One step of an agent on E2B's SDK: a command through envd's Process/Start stream, a file
         * written through envd's {@code /files} and read back there, a pause then a connect (which
         * resumes it), or a written file read back by {@code sha256sum}.
         */
        private boolean actE2b(Ledger ledger, int i) throws Exception {
            int kind = random.nextInt(100);
            if (kind < 35) {
                String token = "tok" + random.nextInt(1_000_000);
                Answer echo = envdRun(ledger, "echo " + token);
                if (echo.status() != 200 && !ledger.executorKilled && quiet() && status(ledger.runtimeId).equals("READY")) {
                    // a READY runtime whose envd fails a command twice, a second apart, is broken, not recovering
                    sleep(1000);
                    echo = envdRun(ledger, "echo " + token);
                    if (echo.status() != 200 && quiet() && status(ledger.runtimeId).equals("READY")) {
                        failures.add("envd command on READY " + ledger.runtimeId + " failed twice: " + echo.status() + " "
                                + echo.clipped());
                    }
                }
                return answered(ledger, echo, "envd command", token);
            }
            if (kind < 70) {
                String path = "/workspace/soak/e-" + i + ".txt";
                String content = text(random, 64 + random.nextInt(64_000));
                Answer written = send("envd write", envd(ledger, "/files?path=" + path).header("Content-Type",
                        "application/octet-stream").POST(HttpRequest.BodyPublishers.ofString(content)), false);
                if (written.status() != 200) {
                    return answered(ledger, written, "envd write", null);
                }
                ledger.acknowledged.put(path, Set.of(sha256(content)));
                writesAcknowledged.incrementAndGet();
                Answer read = send("envd read", envd(ledger, "/files?path=" + path).GET(), true);
                if (read.status() == 200) {
                    writesChecked.incrementAndGet();
                    if (!sha256(new String(read.bytes(), StandardCharsets.UTF_8)).equals(sha256(content))) {
                        failures.add("lost write: " + ledger.runtimeId + " " + path + " read through envd differs");
                    }
                }
                return true;
            }
            if (kind < 85) {
                Answer paused = send("e2b pause", post("/e2b/sandboxes/" + ledger.sandboxId + "/pause", "{}", userKey), false);
                sleep(100 + random.nextInt(400));
                Answer connected = send("e2b connect", post("/e2b/sandboxes/" + ledger.sandboxId + "/connect",
                        "{\"timeout\":900}", userKey), false);
                if (paused.status() == 204 && connected.status() != 200 && connected.status() != 201) {
                    return awaitUsable(ledger, "connect answered " + connected.status() + " " + connected.clipped());
                }
                return true;
            }
            if (ledger.acknowledged.isEmpty()) {
                return true;
            }
            return checkOne(ledger, List.copyOf(ledger.acknowledged.keySet()).get(random.nextInt(ledger.acknowledged.size())));
        }

        /** Reads a file back by its checksum, the ledger's way (an action, or a command through envd). */
        private boolean checkOne(Ledger ledger, String path) throws Exception {
            String how = ledger.e2b() ? "read back through envd" : "read back";
            Answer sum = ledger.e2b() ? envdRun(ledger, "sha256sum " + path)
                    : action(ledger, "{\"action\":\"run\",\"args\":{\"command\":\"sha256sum " + path + "\"}}");
            if (sum.status() != 200) {
                return answered(ledger, sum, how, null);
            }
            Matcher hash = SHA.matcher(sum.body());
            if (!hash.find() && NOT_RUN.matcher(sum.body()).find()) {
                // the shell did not run it (it exited under the command: a sandbox being stopped by its
                // engine's restart, 2026-12-01): no read happened, so the file is checked another time
                return true;
            }
            hash.reset();
            writesChecked.incrementAndGet();
            if (!hash.find() || !ledger.acknowledged.get(path).contains(hash.group(1))) {
                failures.add("lost write: " + ledger.runtimeId + " " + path + " " + how + " " + sum.clipped());
            }
            return true;
        }

        /**
         * An action's answer that was not what was asked: 409 (not READY: a pause, a restart, a
         * recovery under way) waits until it is usable again; other failures are counted.
         */
        private boolean answered(Ledger ledger, Answer answer, String what, String expected) throws Exception {
            if (answer.status() == 200) {
                if (expected != null && !answer.body().contains(expected)) {
                    failures.add(what + " on " + ledger.runtimeId + " answered without " + expected + ": " + answer.clipped());
                }
                return true;
            }
            return awaitUsable(ledger, what + " answered " + answer.status() + " " + answer.clipped());
        }

        /** Waits until the runtime is READY again (true) or has ended (false, and why is noted). */
        private boolean awaitUsable(Ledger ledger, String why) throws Exception {
            String status = awaitStatus(ledger.runtimeId, Set.of("READY", "ERROR", "STOPPED", "PAUSED"), Duration.ofMinutes(3));
            if (status.equals("PAUSED")) {
                // retried while the answer is a 503 (its node cut off, say), as a client that reads Retry-After
                sendWithRetries("resume", () -> ledger.remote() ? post("/runtime-api/resume", "{\"runtime_id\":\""
                        + ledger.runtimeId + "\"}", userKey) : post("/api/v1/runtimes/" + ledger.runtimeId + "/resume", "{}",
                        userKey));
                status = awaitStatus(ledger.runtimeId, Set.of("READY", "ERROR", "STOPPED"), Duration.ofMinutes(2));
            }
            if (status.equals("READY")) {
                return true;
            }
            String message = runtimeMessage(ledger.runtimeId);
            if (status.equals("ERROR") && !message.isBlank()) {
                notes.add("runtime " + ledger.runtimeId + " ended in ERROR after " + why + ": " + message);
            } else {
                failures.add("runtime " + ledger.runtimeId + " is " + status + " after " + why + " (message: '" + message + "')");
            }
            return false;
        }

        /** A fork (a second conversation with the same files) or a snapshot, then its removal. */
        private void copy(Ledger ledger) throws Exception {
            String id = ledger.runtimeId;
            if (random.nextBoolean()) {
                String conversation = "soak-" + run + "-a" + index + "-fork-" + n;
                conversations.add(conversation);
                Optional<String> fork = provision(conversation, "{\"conversationId\":\"" + conversation + "\"}",
                        "runtimes/" + id + "/fork");
                if (fork.isPresent()) {
                    try {
                        verify(ledger, fork.get(), "in its fork");
                    } finally {
                        delete(fork.get());
                        deleteSnapshotsNamed("fork of " + id);
                    }
                }
            } else {
                String name = "soak-" + run + "-" + index + "-" + n;
                Answer snapshot = send("snapshot", post("/api/v1/runtimes/" + id + "/snapshots",
                        "{\"name\":\"" + name + "\"}", userKey), false);
                if (snapshot.status() == 201) {
                    Matcher sid = SNAPSHOT_ID.matcher(snapshot.body());
                    if (sid.find()) {
                        String snapshotId = sid.group(1);
                        expect(sendWithRetries("delete snapshot", () -> HttpRequest.newBuilder(URI.create(base
                                + "/api/v1/snapshots/" + snapshotId)).header("X-API-Key", userKey).DELETE()),
                                "delete a snapshot", 204, 404);
                    }
                } else if (snapshot.status() != 409 && !(snapshot.status() == 503 && snapshot.retryAfter())
                        && snapshot.status() != -1) {
                    // 409 not READY; 503 with Retry-After its sandbox being started again; -1 the
                    // server killed meanwhile (a snapshot it made anyway is deleted at the end)
                    failures.add("snapshot of " + id + " answered " + snapshot.status() + " " + snapshot.clipped());
                }
            }
        }
    }

    /** Every acknowledged write of the ledger, read back in {@code runtimeId} (the runtime or its fork). */
    private void verify(Ledger ledger, String runtimeId, String where) throws Exception {
        if (ledger.acknowledged.isEmpty()) {
            return;
        }
        String status = awaitStatus(runtimeId, Set.of("READY", "ERROR", "STOPPED"), Duration.ofMinutes(3));
        String message = status.equals("READY") ? "" : runtimeMessage(runtimeId);
        if (status.equals("ERROR") && ledger.executorKilled && !message.isBlank()) {
            // what the executor kill allows: it ended with a message naming why; its files went with it
            notes.add(runtimeId + " ended in ERROR after its executor was killed (" + message + "): "
                    + ledger.acknowledged.size() + " writes not checked");
            return;
        }
        if (!status.equals("READY")) {
            failures.add("could not check " + ledger.acknowledged.size() + " acknowledged writes " + where + ": "
                    + runtimeId + " is " + status + " (" + runtimeMessage(runtimeId) + ")");
            return;
        }
        String command = "{\"action\":\"run\",\"args\":{\"command\":\"cd / && sha256sum "
                + String.join(" ", ledger.acknowledged.keySet()) + " 2>&1\"}}";
        Answer sums = runtimeId.equals(ledger.runtimeId) ? action(ledger, command) : action(runtimeId, command);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while ((sums.status() == 503 || sums.status() == 409 || sums.status() < 0) && System.nanoTime() < deadline) {
            // being recovered (its executor killed, the engine or the server restarted): asked again
            // once READY, and after the Retry-After a 503 asks for (its URL's too, while its stopped
            // sandbox is started again)
            sleep(2000);
            awaitStatus(runtimeId, Set.of("READY", "ERROR", "STOPPED"), Duration.ofMinutes(2));
            sums = runtimeId.equals(ledger.runtimeId) ? action(ledger, command) : action(runtimeId, command);
        }
        if (sums.status() != 200) {
            failures.add("could not check the writes " + where + ": " + sums.status() + " " + sums.clipped());
            return;
        }
        for (Map.Entry<String, Set<String>> file : ledger.acknowledged.entrySet()) {
            writesChecked.incrementAndGet();
            Matcher line = Pattern.compile("([0-9a-f]{64})  " + Pattern.quote(file.getKey())).matcher(sums.body());
            if (!line.find() || !file.getValue().contains(line.group(1))) {
                failures.add("lost write " + where + ": " + runtimeId + " " + file.getKey()
                        + (ledger.executorKilled ? " (its executor was killed)" : ""));
            }
        }
    }

    // ---------------------------------------------------------------- faults

    /** One fault: injects it and measures until things work again. */
    private interface Fault {
        String name();

        /** Whether it may come now; one that may not is passed over, and comes at the next turn it may. */
        default boolean mayCome() {
            return true;
        }

        /** Recovered in this many ms, or a note why it is not measured. */
        Recovery inject(Random random) throws Exception;
    }

    private record Recovery(double ms, String note) {
    }

    private void injectFaults(long deadline, Random random) {
        // the restart first: the process that runs to the end is then measured warm before the next fault
        List<Fault> faults = new ArrayList<>(List.of(new ControlPlaneKill(), new ExecutorKill(), new QuotaBurst(),
                new UploadDrop(), new StreamDrop()));
        if (!settings.quick()) {
            // early in the turn, so that a 30-minute run restarts the engine twice; not in the smoke,
            // whose engine is shared with the test run's other suites
            faults.add(1, new EngineRestart());
        }
        // the two-control-plane profile's own faults first: a control-plane restart there takes
        // minutes under load (the survivor goes on serving the agents), and they must come twice
        if (node2 != null) {
            faults.add(0, new NodeCut());
        }
        if (database != null) {
            faults.add(0, new DatabaseStop());
        }
        // spaced from the previous fault's start, so that a slow one (a restart) does not push the rest out
        long nextAt = System.nanoTime() + settings.faultEvery().toNanos();
        // every kind owed in the smoke must come within the run and two minutes more
        long cap = deadline + TimeUnit.MINUTES.toNanos(2);
        Set<Fault> injected = new HashSet<>();
        while (true) {
            boolean owed = settings.quick() && injected.size() < faults.size();
            long end = owed ? cap : deadline;
            sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(Math.min(nextAt, end) - System.nanoTime())));
            if (System.nanoTime() >= end) {
                if (owed) {
                    faults.stream().filter(f -> !injected.contains(f)).forEach(f -> failures.add("fault '" + f.name()
                            + "' was not injected within the run, two minutes more and the time faults overran their spacing"));
                }
                return;
            }
            for (Server each : servers) {
                // a restarted server is measured once it has served for a while, not as it came up
                if (System.nanoTime() >= warmAt.getOrDefault(each.url(), 0L) && baselineDue.remove(each.url())) {
                    baselines.put(each.url(), resources(each));
                }
            }
            Fault fault = faults.stream().filter(Fault::mayCome).findFirst().orElse(null);
            if (fault == null) {
                nextAt = System.nanoTime() + settings.faultEvery().toNanos();
                continue;
            }
            // to the end of the turn: one passed over keeps its place ahead of the rest
            faults.remove(fault);
            faults.add(fault);
            injected.add(fault);
            long start = System.nanoTime();
            nextAt = start + settings.faultEvery().toNanos();
            try {
                inject(fault, random, start);
            } finally {
                // the faults still owed get their spacing back from one that overran it (a restart
                // of the control plane that took 160 s on a busy machine left three uninjected)
                cap += Math.max(0, System.nanoTime() - nextAt);
            }
        }
    }

    /**
     * No fault under way, and none ended within the last 30 s: a runtime whose sandbox stopped with
     * the engine answers 503 at its URL until it is started again (a pass that starts a dozen
     * stopped sandboxes again takes half a minute on a busy machine).
     */
    private boolean quiet() {
        return underway == null && System.nanoTime() - lastFaultEnded > TimeUnit.SECONDS.toNanos(30);
    }

    /** One fault injected and recorded in its window. */
    private void inject(Fault fault, Random random, long start) {
        underway = fault.name();
        try {
            Recovery recovery = fault.inject(random);
            windows.add(new Window(fault.name(), start - startedAt, System.nanoTime() - startedAt, recovery.ms(), recovery.note()));
            say(fault.name() + ": " + (recovery.ms() >= 0 ? Math.round(recovery.ms()) + " ms to recover" : "")
                    + (recovery.note().isEmpty() ? "" : " (" + recovery.note() + ")"));
        } catch (NoLiveRuntime e) {
            windows.add(new Window(fault.name(), start - startedAt, System.nanoTime() - startedAt, -1, e.getMessage()));
            say(fault.name() + ": not injected (" + e.getMessage() + ")");
        } catch (Exception e) {
            windows.add(new Window(fault.name(), start - startedAt, System.nanoTime() - startedAt, -1, "failed: " + e));
            failures.add("fault " + fault.name() + " could not be injected or did not recover: " + e);
        } finally {
            underway = null;
            lastFaultEnded = System.nanoTime();
        }
    }

    /** No agent had a live runtime for a minute: the fault had nothing to hit, so it is not measured. */
    private static final class NoLiveRuntime extends Exception {
        NoLiveRuntime() {
            super("no live runtime within a minute", null, false, false);
        }
    }

    /** One of the agents' live runtimes, waited for up to a minute (after a restart they are provisioning again). */
    private Ledger pickLive(Random random) throws NoLiveRuntime {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        List<Ledger> candidates = List.copyOf(live.values());
        while (candidates.isEmpty() && System.nanoTime() < deadline) {
            sleep(500);
            candidates = List.copyOf(live.values());
        }
        if (candidates.isEmpty()) {
            throw new NoLiveRuntime();
        }
        return candidates.get(random.nextInt(candidates.size()));
    }

    /** kill -9 of the executor inside one agent's sandbox: it must come back or end in a clear ERROR. */
    private final class ExecutorKill implements Fault {
        public String name() {
            return "kill -9 of a sandbox's executor";
        }

        public Recovery inject(Random random) throws Exception {
            Ledger victim = pickLive(random);
            String container = "dockyard-" + victim.runtimeId;
            String engine = engineOf(container);
            String top = dockerOn(engine, "top", container, "-eo", "pid,args");
            Matcher java = Pattern.compile("(?m)^\\s*(\\d+)\\s+\\S*java\\b").matcher(top);
            if (!java.find()) {
                return new Recovery(-1, "no executor process in " + container);
            }
            victim.executorKilled = true;
            long start = System.nanoTime();
            Process kill = new ProcessBuilder("kill", "-9", java.group(1)).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                if (!dockerOn(engine, "ps", "-aq", "--filter", "name=^" + container + "$").isBlank()) {
                    throw new IllegalStateException("kill -9 of the executor (host pid " + java.group(1) + ") failed: " + said);
                }
                // its agent deleted the runtime between the pick and the kill: nothing was injected
                victim.executorKilled = false;
                return new Recovery(-1, "the runtime picked was deleted before the kill");
            }
            // usable again: READY and answering an action, or ended with a message
            long deadline = start + TimeUnit.MINUTES.toNanos(3);
            while (System.nanoTime() < deadline) {
                Answer echo = action(victim.runtimeId, "{\"action\":\"run\",\"args\":{\"command\":\"echo back\"}}");
                if (echo.status() == 200 && echo.body().contains("back")) {
                    return new Recovery(ms(start), "");
                }
                String status = status(victim.runtimeId);
                if (status.equals("ERROR") || status.equals("STOPPED")) {
                    String message = runtimeMessage(victim.runtimeId);
                    if (message.isBlank()) {
                        failures.add("after its executor was killed, " + victim.runtimeId + " is " + status + " with no message");
                    }
                    return new Recovery(ms(start), "ended " + status + ": " + message);
                }
                sleep(250);
            }
            failures.add("after its executor was killed, " + victim.runtimeId + " neither answered nor ended within 3 min ("
                    + status(victim.runtimeId) + "; " + sandboxTruth(victim.runtimeId) + ")");
            return new Recovery(-1, "not recovered");
        }
    }

    /**
     * A restart of the Docker engine, which stops every container with it: each runtime live at the
     * restart must answer again or end with a message (paused ones are their agents' to resume),
     * none left READY without answering. Only the engine docker/ensure-engine.sh started (its pid
     * file names it) is restarted, by that script: one the harness did not start is not its to stop.
     */
    private final class EngineRestart implements Fault {
        private static final Path PID_FILE = Path.of("/var/lib/dockyard/dockerd.pid");

        public String name() {
            return "restart of the Docker engine";
        }

        public Recovery inject(Random random) throws Exception {
            Optional<ProcessHandle> dockerd = Files.isReadable(PID_FILE)
                    ? ProcessHandle.of(Long.parseLong(Files.readString(PID_FILE).strip()))
                            .filter(p -> p.info().command().map(c -> c.endsWith("/dockerd")).orElse(false))
                    : Optional.empty();
            Path script = Path.of(System.getProperty("soak.root", "."), "docker", "ensure-engine.sh");
            if (dockerd.isEmpty() || !Files.isReadable(script)) {
                return new Recovery(-1, "the engine is not docker/ensure-engine.sh's (no live dockerd in " + PID_FILE
                        + ", or no " + script + "): not restarted");
            }
            Set<String> pending = new LinkedHashSet<>();
            live.values().forEach(l -> pending.add(l.runtimeId));
            long start = System.nanoTime();
            dockerd.get().destroy();
            try {
                dockerd.get().onExit().get(90, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("dockerd (pid " + dockerd.get().pid() + ") did not stop within 90 s of SIGTERM");
            }
            String started = command("bash", script.toString());
            if (docker("version", "--format", "{{.Server.Version}}").isBlank()) {
                throw new IllegalStateException("the engine did not come back: " + started);
            }
            return answeredOrEnded(pending, start, "the engine's restart");
        }
    }

    /**
     * Waits until each runtime answers an {@code echo} again or has ended with a message (or was
     * paused by its agent), 5 minutes at most from {@code start}; recovered when none is left.
     */
    private Recovery answeredOrEnded(Set<String> pending, long start, String after) {
        int answered = 0;
        Map<String, Integer> ended = new TreeMap<>();
        long deadline = start + TimeUnit.MINUTES.toNanos(5);
        // what kept the last one from counting: a slow recovery says which runtime and why
        String last = "";
        String slow = "";
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            for (String id : List.copyOf(pending)) {
                long asked = System.nanoTime();
                Answer echo = action(id, "{\"action\":\"run\",\"args\":{\"command\":\"echo back\"}}");
                if (ms(asked) > 5_000) {
                    // the wait may be the calls' own, not the runtimes': said with the rest
                    slow = id + "'s action took " + Math.round(ms(asked) / 1000) + " s (" + echo.status() + ")";
                }
                if (echo.status() == 200 && echo.body().contains("back")) {
                    answered++;
                    pending.remove(id);
                    continue;
                }
                String status = status(id);
                if (Set.of("ERROR", "STOPPED", "GONE", "PAUSED", "HIBERNATED").contains(status)) {
                    if (status.equals("ERROR") && runtimeMessage(id).isBlank()) {
                        failures.add("after " + after + ", " + id + " is ERROR with no message");
                    }
                    ended.merge(status, 1, Integer::sum);
                    pending.remove(id);
                } else {
                    last = id + " " + status + " at " + Math.round(ms(start) / 1000) + " s, its action " + echo.status() + " "
                            + echo.clipped();
                }
            }
            sleep(500);
        }
        if (ms(start) > 10_000 && !(last.isEmpty() && slow.isEmpty())) {
            say("recovery after " + after + " took " + Math.round(ms(start) / 1000) + " s; last seen pending: "
                    + (last.isEmpty() ? "none" : last) + (slow.isEmpty() ? "" : "; the slowest call: " + slow));
        }
        for (String id : pending) {
            failures.add("after " + after + ", " + id + " neither answered nor ended within 5 min ("
                    + status(id) + "; " + sandboxTruth(id) + ")");
        }
        return new Recovery(pending.isEmpty() ? ms(start) : -1, answered + " answered again, ended or paused "
                + ended + (pending.isEmpty() ? "" : ", " + pending.size() + " neither"));
    }

    /**
     * kill -9 of the control plane, then a restart with the same settings: with one, recovery is
     * until it is ready again. With two, the victim is the one that holds the reconciler's lease
     * (drained from the load balancer first, as a health check would); recovery is until the
     * survivor holds the lease (the victim's expires first), and the victim is restarted and admitted.
     */
    private final class ControlPlaneKill implements Fault {
        public String name() {
            return servers.size() > 1 ? "kill -9 of the control plane holding the lease" : "kill -9 of the control plane";
        }

        /** Not while the last victim restarts: the lease holder would then be the only server up. */
        public boolean mayCome() {
            return restarting.isDone();
        }

        public Recovery inject(Random random) throws Exception {
            if (servers.size() == 1) {
                Server server = servers.get(0);
                long start = System.nanoTime();
                serverDown = true;
                try {
                    server.killNine();
                    server.start();
                } finally {
                    serverDown = false;
                }
                awaitReady(Duration.ofMinutes(5));
                // a new process: measured again before the next fault, once it has worked a while
                baselineDue.add(server.url());
                warmAt.put(server.url(), System.nanoTime() + TimeUnit.MINUTES.toNanos(3));
                return new Recovery(ms(start), "");
            }
            Server victim = null;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (victim == null && System.nanoTime() < deadline) {
                victim = servers.stream().filter(s -> leases(s).contains("reconciler")).findFirst().orElse(null);
                sleep(victim == null ? 1000 : 0);
            }
            if (victim == null) {
                failures.add("no control plane held the reconciler's lease for 2 min");
                return new Recovery(-1, "no lease holder");
            }
            Server killed = victim;
            Server survivor = servers.stream().filter(s -> s != killed).findFirst().orElseThrow();
            int port = URI.create(victim.url()).getPort();
            front.drain(port);
            frontServices.drain(port + 1000);
            long start = System.nanoTime();
            double takeover = -1;
            boolean restartStarted = false;
            try {
                victim.killNine();
                long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                while (System.nanoTime() < until) {
                    if (leases(survivor).contains("reconciler")) {
                        takeover = ms(start);
                        break;
                    }
                    sleep(250);
                }
                // the restart goes on beside the next faults; the balancer sends to it once it is ready
                restarting = CompletableFuture.runAsync(() -> restart(killed, port, start));
                restartStarted = true;
            } finally {
                if (!restartStarted) {
                    admitAgain(killed, port);
                }
            }
            if (takeover < 0) {
                failures.add("the survivor " + survivor.url() + " did not take the reconciler's lease within 3 min of the kill");
            }
            return new Recovery(takeover, "the lease taken over by the survivor; the killed one restarts beside the "
                    + "next faults");
        }

        private void restart(Server killed, int port, long killedAt) {
            try {
                killed.start();
                notes.add("the control plane killed at " + secondsOf(killedAt - startedAt) + " s (" + killed.url()
                        + ") restarted and was ready " + Math.round(ms(killedAt) / 1000) + " s after its kill");
            } catch (Exception e) {
                failures.add("the killed control plane " + killed.url() + " did not restart: " + e);
            } finally {
                admitAgain(killed, port);
            }
        }

        /** Whatever happened, the balancer sends to it again, and it is measured anew once warm. */
        private void admitAgain(Server server, int port) {
            front.admit(port);
            frontServices.admit(port + 1000);
            baselineDue.add(server.url());
            warmAt.put(server.url(), System.nanoTime() + TimeUnit.MINUTES.toNanos(3));
        }
    }

    /** The leases a server says it holds ({@code /health/live}'s instance check); empty when it does not answer. */
    private String leases(Server server) {
        try {
            HttpResponse<String> live = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/health/live"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            Matcher leases = Pattern.compile("\"leases\":\"([^\"]*)\"").matcher(live.body());
            return leases.find() ? leases.group(1) : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * The servers' PostgreSQL stopped for 30 s (the harness's own cluster: docker/ensure-postgresql.sh
     * with the directory soak.sh gave it), then started again by that script. Meanwhile the agents go
     * on: what the servers answer is judged with every other answer (no 5xx but a 503 with
     * Retry-After). Recovered when both servers are ready again and a live runtime answers.
     */
    private final class DatabaseStop implements Fault {
        public String name() {
            return "PostgreSQL stopped for 30 s";
        }

        /** Not while a killed control plane restarts: its boot would meet no database (a fault of its own). */
        public boolean mayCome() {
            return restarting.isDone();
        }

        public Recovery inject(Random random) throws Exception {
            Path script = Path.of(System.getProperty("soak.root", "."), "docker", "ensure-postgresql.sh");
            String started;
            try {
                String stopped = command("bash", script.toString(), "--stop");
                if (!stopped.contains("server stopped")) {
                    throw new IllegalStateException("PostgreSQL was not stopped: " + stopped);
                }
                sleep(30_000);
            } finally {
                // started again whatever happened: the rest of the run needs it
                started = command("bash", script.toString(), database);
            }
            if (!started.contains("jdbc:postgresql:")) {
                throw new IllegalStateException("PostgreSQL did not start again: " + started);
            }
            long start = System.nanoTime();
            long deadline = start + TimeUnit.MINUTES.toNanos(3);
            for (Server each : servers) {
                while (send("health", HttpRequest.newBuilder(URI.create(each.url() + "/health/ready")).GET(), false)
                        .status() != 200) {
                    if (System.nanoTime() > deadline) {
                        failures.add(each.url() + " was not ready within 3 min of the database's return");
                        return new Recovery(-1, "not recovered");
                    }
                    sleep(250);
                }
            }
            Set<String> pending = new LinkedHashSet<>();
            live.values().stream().filter(l -> !l.e2b()).limit(5).forEach(l -> pending.add(l.runtimeId));
            Recovery recovery = answeredOrEnded(pending, start, "the database's return");
            return new Recovery(recovery.ms() < 0 ? -1 : ms(start), "from its return: " + recovery.note());
        }
    }

    /**
     * The second engine node cut off for 60 s (its forwarder closed: connections refused, the engine
     * and its sandboxes untouched), then reachable again. Its runtimes live at the cut must answer
     * again or end with a message; new runtimes go to the first node meanwhile.
     */
    private final class NodeCut implements Fault {
        public String name() {
            return "second engine node cut off for 60 s";
        }

        public Recovery inject(Random random) throws Exception {
            Set<String> onIt = new LinkedHashSet<>();
            for (String id : List.copyOf(live.keySet())) {
                Answer runtime = send("status", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id))
                        .header("X-API-Key", userKey).GET(), false);
                if (runtime.body().contains("\"node\":\"node2\"")) {
                    onIt.add(id);
                }
            }
            int runtimes = onIt.size();
            node2.close();
            try {
                sleep(60_000);
            } finally {
                node2 = node2.reopen(node2Port);
            }
            long start = System.nanoTime();
            Recovery recovery = answeredOrEnded(onIt, start, "its node's return");
            return new Recovery(recovery.ms(), "from its return; of its " + runtimes + " runtimes: " + recovery.note());
        }
    }

    /** A hundred provisions at once by a user allowed two: two admitted, the rest a clear 429, no 5xx. */
    private final class QuotaBurst implements Fault {
        public String name() {
            return "100 provisions beyond the quota";
        }

        public Recovery inject(Random random) throws Exception {
            String user = "soak-burst-" + run + "-" + random.nextInt(1_000_000);
            String key = newUser(user, 2);
            long start = System.nanoTime();
            ExecutorService burst = Executors.newFixedThreadPool(20);
            List<Future<Answer>> posts = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String conversation = user + "-" + i;
                posts.add(burst.submit(() -> send("burst provision", post("/api/v1/runtimes",
                        "{\"conversationId\":\"" + conversation + "\"}", key), false)));
            }
            Map<Integer, Integer> statuses = new LinkedHashMap<>();
            List<String> admitted = new ArrayList<>();
            for (Future<Answer> post : posts) {
                Answer answer = post.get(5, TimeUnit.MINUTES);
                statuses.merge(answer.status(), 1, Integer::sum);
                if (answer.status() == 201 || answer.status() == 202) {
                    Matcher id = ID.matcher(answer.body());
                    if (id.find()) {
                        admitted.add(id.group(1));
                        runtimeIds.add(id.group(1));
                    }
                } else if (answer.status() != 429 || !answer.body().contains("quota-exceeded")) {
                    failures.add("a provision beyond the quota answered " + answer.status() + " " + answer.clipped());
                }
            }
            burst.shutdown();
            double ms = ms(start);
            if (admitted.size() != 2) {
                failures.add("a user allowed 2 runtimes got " + admitted.size() + " from a burst of 100: " + statuses);
            }
            for (String id : admitted) {
                sendWithRetries("delete", () -> HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id))
                        .header("X-API-Key", key).DELETE());
            }
            return new Recovery(ms, "answers " + statuses);
        }
    }

    /**
     * A client that sends half an upload and drops its connection: nothing half-written appears,
     * and the runtime takes the next upload.
     */
    private final class UploadDrop implements Fault {
        public String name() {
            return "client drops mid-upload";
        }

        public Recovery inject(Random random) throws Exception {
            Ledger target = pickLive(random);
            URI uri = URI.create(base);
            String boundary = "soak" + random.nextInt(1_000_000);
            byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"dropped.bin\""
                    + "\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            int size = 4 << 20;
            long start = System.nanoTime();
            try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST /api/v1/runtimes/" + target.runtimeId + "/files?destination=/workspace/soak/dropped HTTP/1.1\r\n"
                        + "Host: " + uri.getHost() + ":" + uri.getPort() + "\r\nX-API-Key: " + userKey
                        + "\r\nContent-Type: multipart/form-data; boundary=" + boundary
                        + "\r\nContent-Length: " + (head.length + size + boundary.length() + 8) + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(head);
                out.write(new byte[size / 2]);
                out.flush();
            }
            // the runtime goes on: the next upload lands, and no half file is left
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                Answer next = upload(target.runtimeId, "/workspace/soak/dropped", "after.txt",
                        "after".getBytes(StandardCharsets.UTF_8));
                if (next.status() == 200) {
                    double recovered = ms(start);
                    // the half body is kept aside (never under its name) until the server gives up on
                    // the dropped client (its read timeout) and the executor's upload ends: then it goes
                    // (waited for in full runs; the smoke checks only that its name holds no half file)
                    long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.quick() ? 0 : 120);
                    Answer listing;
                    do {
                        listing = action(target.runtimeId,
                                "{\"action\":\"run\",\"args\":{\"command\":\"ls -A /workspace/soak/dropped\"}}");
                        if (listing.body().contains("dropped.bin")) {
                            failures.add("a dropped upload left a half file in " + target.runtimeId + ": " + listing.clipped());
                            break;
                        }
                        if (listing.status() != 200 || !listing.body().contains(".upload-")) {
                            break;
                        }
                        sleep(2000);
                    } while (System.nanoTime() < gone && live.containsKey(target.runtimeId));
                    if (!settings.quick() && listing.body().contains(".upload-") && live.containsKey(target.runtimeId)) {
                        failures.add("a dropped upload's partial body was still there 120 s later in " + target.runtimeId);
                    }
                    return new Recovery(recovered, "");
                }
                if (!live.containsKey(target.runtimeId)) {
                    return new Recovery(-1, "its runtime was deleted meanwhile");
                }
                sleep(250);
            }
            failures.add("after a dropped upload, " + target.runtimeId + " took no upload for 60 s");
            return new Recovery(-1, "not recovered");
        }
    }

    /** Twenty event streams opened and dropped after their first event. */
    private final class StreamDrop implements Fault {
        public String name() {
            return "clients drop mid-stream (20 event streams)";
        }

        public Recovery inject(Random random) throws Exception {
            Ledger target = pickLive(random);
            URI uri = URI.create(base);
            long start = System.nanoTime();
            int events = 0;
            for (int i = 0; i < 20; i++) {
                try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream().write(("GET /api/v1/runtimes/" + target.runtimeId + "/events HTTP/1.1\r\n"
                            + "Host: " + uri.getHost() + ":" + uri.getPort() + "\r\nX-API-Key: " + userKey
                            + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    if (readUntil(socket.getInputStream(), "data:", 64 << 10)) {
                        events++;
                    }
                } catch (IOException e) {
                    // a stream the server ended first is fine: the drop is the client's
                }
            }
            Answer after = action(target.runtimeId, "{\"action\":\"run\",\"args\":{\"command\":\"echo after\"}}");
            return new Recovery(ms(start), events + " of 20 streams gave an event before the drop; an action after: "
                    + after.status());
        }
    }

    // ---------------------------------------------------------------- accounting

    private record Resources(long pid, long heapKb, long threads, long fds, Map<String, Long> bytesByClass) {
    }

    /** A server's heap after a full collection, its threads and open files. */
    private Resources resources(Server server) {
        try {
            long pid = server.pid();
            command("jcmd", String.valueOf(pid), "GC.run");
            String heap = command("jcmd", String.valueOf(pid), "GC.heap_info");
            // the heap's generations (or G1's one line), not the metaspace
            Matcher used = Pattern.compile("(?m)^\\s*[A-Za-z -]+?\\s+total \\d+K, used (\\d+)K").matcher(heap);
            long usedKb = 0;
            while (used.find()) {
                usedKb += Long.parseLong(used.group(1));
            }
            String status = Files.readString(Path.of("/proc/" + pid + "/status"));
            Matcher threads = Pattern.compile("Threads:\\s+(\\d+)").matcher(status);
            long fds;
            try (var files = Files.list(Path.of("/proc/" + pid + "/fd"))) {
                fds = files.count();
            }
            // what the heap holds by class, so that a growth names what grew
            Map<String, Long> bytesByClass = new HashMap<>();
            Matcher row = Pattern.compile("(?m)^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)")
                    .matcher(command("jcmd", String.valueOf(pid), "GC.class_histogram"));
            while (row.find()) {
                bytesByClass.merge(row.group(2), Long.parseLong(row.group(1)), Long::sum);
            }
            return new Resources(pid, usedKb > 0 ? usedKb : -1,
                    threads.find() ? Long.parseLong(threads.group(1)) : -1, fds, bytesByClass);
        } catch (Exception e) {
            notes.add("could not read the server's resources: " + e);
            return new Resources(-1, -1, -1, -1, Map.of());
        }
    }

    /** The classes whose instances grew most between two readings, in KiB. */
    private static String grownMost(Resources before, Resources after) {
        return after.bytesByClass().entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.bytesByClass().getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(10)
                .map(e -> e.getKey() + " +" + e.getValue() / 1024)
                .collect(Collectors.joining(", "));
    }

    private void account() throws Exception {
        // nothing transient, nothing live: every agent deleted what it made
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<String> unsettled = unsettled();
        while (!unsettled.isEmpty() && System.nanoTime() < deadline) {
            sleep(1000);
            unsettled = unsettled();
        }
        unsettled.forEach(r -> failures.add("not settled 90 s after the end: " + r));
        // one runtime per conversation (retries carried an Idempotency-Key)
        for (String conversation : conversations) {
            Answer list = send("list", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes?conversationId="
                    + conversation)).header("X-API-Key", userKey).GET(), false);
            // a runtime failed on the way (a provision the restart interrupted) is not a second one
            Matcher runtime = Pattern.compile("\\{\"id\":\"(rt-[0-9a-f]+)\"[^{}]*?\"status\":\"([A-Z_]+)\"").matcher(list.body());
            Set<String> found = new LinkedHashSet<>();
            while (runtime.find()) {
                if (!runtime.group(2).equals("ERROR")) {
                    found.add(runtime.group(1));
                }
            }
            if (found.size() > 1) {
                failures.add("duplicate runtimes for conversation " + conversation + ": " + found);
            }
        }
        // nothing left behind on the engine by what the soak made
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> orphans = orphans();
        while (!orphans.isEmpty() && System.nanoTime() < deadline) {
            sleep(2000);
            orphans = orphans();
        }
        orphans.forEach(o -> failures.add("orphan 60 s after the end: " + o));
        // 5xx other than a 503 with Retry-After, wherever Dockyard answered, its service URLs and
        // envd's included. What a runtime's URL says of a runtime its agent (or the idle lifecycle)
        // paused is the protocol's, not a failure: 503 "paused" at OpenHands' URL (its client resumes),
        // 502 "not found" on E2B's routes (its SDK connects, which resumes); envd's own error at the
        // end of a command's stream is the command's (counted)
        long serviceErrors = calls.stream().filter(c -> throughService(c) && c.status() >= 500).count();
        if (serviceErrors > 0) {
            notes.add(serviceErrors + " answers of 5xx through runtimes' service URLs, envd's included (503 with "
                    + "Retry-After while recovered, 503 paused, 502 a paused sandbox on E2B's routes, envd's own errors)");
        }
        for (Call call : calls) {
            // a health probe's 503 is its answer (not ready yet), not a request that failed
            if (call.kind().equals("health") || call.kind().equals("envd command error")) {
                continue;
            }
            if (throughService(call) && (call.status() == 503 && call.detail().contains("is paused")
                    || call.status() == 502 && call.detail().contains("was not found"))) {
                continue;
            }
            if (call.status() >= 500 && !(call.status() == 503 && call.retryAfter())) {
                failures.add(call.kind() + " answered " + call.status() + " at " + secondsOf(call.at()) + " s: " + call.detail());
            }
        }
        for (Server server : servers) {
            compareResources(server);
        }
    }

    /** A server's heap, threads and files at the end against the same process once warm. */
    private void compareResources(Server server) {
        Resources before = baselines.get(server.url());
        Resources after = resources(server);
        if (before == null || baselineDue.contains(server.url())) {
            notes.add("the resources of " + server.url() + " were not compared: it was restarted by the last fault");
            return;
        }
        notes.add("server " + server.url() + " once warm: heap " + before.heapKb() + " KiB, " + before.threads()
                + " threads, " + before.fds() + " fds (pid " + before.pid() + "); after: heap " + after.heapKb() + " KiB, "
                + after.threads() + " threads, " + after.fds() + " fds (pid " + after.pid() + ")");
        if (settings.quick()) {
            return;
        }
        if (before.heapKb() > 0 && after.heapKb() > before.heapKb() * 1.2) {
            failures.add(server.url() + ": heap after a full GC grew from " + before.heapKb() + " to " + after.heapKb() + " KiB"
                    + " (KiB by class: " + grownMost(before, after) + ")");
        }
        if (before.threads() > 0 && after.threads() > before.threads() * 1.1 + 2) {
            failures.add(server.url() + ": threads grew from " + before.threads() + " to " + after.threads());
        }
        if (before.fds() > 0 && after.fds() > before.fds() * 1.1 + 2) {
            failures.add(server.url() + ": open files grew from " + before.fds() + " to " + after.fds());
        }
    }

    private void awaitReady(Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (send("health", HttpRequest.newBuilder(URI.create(base + "/health/ready")).GET(), false).status() != 200) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the control plane at " + base + " was not ready within " + within);
            }
            sleep(500);
        }
    }

    /** Runtimes of the soak's user that are live or transient. */
    private List<String> unsettled() {
        Answer list = send("list", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes")).header("X-API-Key", userKey)
                .GET(), false);
        List<String> found = new ArrayList<>();
        Matcher runtime = Pattern.compile("\\{\"id\":\"(rt-[0-9a-f]+)\"[^{}]*?\"status\":\"([A-Z_]+)\"").matcher(list.body());
        while (runtime.find()) {
            if (!runtime.group(2).equals("STOPPED") && !runtime.group(2).equals("ERROR")) {
                found.add(runtime.group(1) + " " + runtime.group(2));
            }
        }
        return found;
    }

    /**
     * The soak's containers, volumes, networks and snapshot images still on the engine (its
     * runtimes' and its pool's). Containers are listed by their runtime, not by their control
     * plane: a workspace's copier carries no control plane's label, and one left behind holds the
     * runtime's volumes.
     */
    private List<String> orphans() throws Exception {
        List<String> found = new ArrayList<>();
        String label = "label=dev.dockyard.control-plane=" + instance;
        for (String kind : List.of("container", "volume", "network")) {
            String format = kind.equals("container") ? "{{.Names}} {{.Label \"dev.dockyard.runtime-id\"}} {{.Label \"dev.dockyard.pool\"}}"
                    : "{{.Name}} {{.Label \"dev.dockyard.runtime-id\"}}";
            for (String engine : engines) {
                String listing = kind.equals("container")
                        ? dockerOn(engine, "ps", "-a", "--filter", "label=dev.dockyard.runtime-id", "--format", format)
                        : dockerOn(engine, kind, "ls", "--filter", label, "--format", format);
                for (String line : listing.split("\n")) {
                    String[] fields = line.strip().split(" ");
                    boolean ours = fields.length > 1 && runtimeIds.contains(fields[1])
                            || fields.length > 2 && fields[2].equals(POOL) && settings.poolSize() > 0;
                    if (ours) {
                        found.add(kind + " " + fields[0] + (engine.isEmpty() ? "" : " on " + engine));
                    }
                }
            }
        }
        // every snapshot an agent made is deleted by then, one whose create went unanswered too
        for (String engine : engines) {
            String images = dockerOn(engine, "image", "ls", "--filter", label, "--filter", "label=dev.dockyard.snapshot-id",
                    "--format", "{{.Repository}}:{{.Tag}}");
            for (String image : images.split("\n")) {
                if (!image.startsWith("dockyard/snapshot:")) {
                    continue;
                }
                String runtime = dockerOn(engine, "image", "inspect", "--format",
                        "{{index .Config.Labels \"dev.dockyard.runtime-id\"}}", image).strip();
                if (runtimeIds.contains(runtime)) {
                    found.add("image " + image + (engine.isEmpty() ? "" : " on " + engine));
                }
            }
        }
        return found;
    }

    /** A fault's time, in nanoseconds since the soak started (as {@link Call#at}). */
    private record Window(String fault, long start, long end, double recoveryMs, String note) {
    }

    /** The table: per fault, and the totals. */
    private String table() {
        StringBuilder out = new StringBuilder();
        out.append("\n| fault | injected | recovery p50 / p99 (ms) | requests failed in its window (how) | notes |\n");
        out.append("|---|---|---|---|---|\n");
        Map<String, List<Window>> byFault = new LinkedHashMap<>();
        windows.forEach(w -> byFault.computeIfAbsent(w.fault(), k -> new ArrayList<>()).add(w));
        for (Map.Entry<String, List<Window>> fault : byFault.entrySet()) {
            List<Double> recoveries = fault.getValue().stream().map(Window::recoveryMs).filter(ms -> ms >= 0).sorted().toList();
            Map<String, Integer> failed = new LinkedHashMap<>();
            for (Call call : calls) {
                boolean inside = fault.getValue().stream().anyMatch(w -> call.at() >= w.start()
                        && call.at() <= w.end() + TimeUnit.SECONDS.toNanos(10));
                if (inside && (call.status() < 200 || call.status() >= 400) && !call.kind().startsWith("burst")) {
                    failed.merge(call.kind() + " " + (call.status() < 0 ? "no answer" : String.valueOf(call.status())), 1,
                            Integer::sum);
                }
            }
            Set<String> distinctNotes = new LinkedHashSet<>();
            fault.getValue().stream().map(Window::note).filter(n -> !n.isEmpty()).forEach(distinctNotes::add);
            out.append("| ").append(fault.getKey()).append(" | ").append(fault.getValue().size()).append(" | ")
                    .append(recoveries.isEmpty() ? "—" : Math.round(pct(recoveries, 50)) + " / " + Math.round(pct(recoveries, 99)))
                    .append(" | ").append(failed.isEmpty() ? "0" : failed.toString()).append(" | ")
                    .append(String.join("; ", distinctNotes).replace("|", "/")).append(" |\n");
        }
        List<Double> quiet = new ArrayList<>();
        List<Double> outside = new ArrayList<>();
        long firstFault = windows.stream().mapToLong(Window::start).min().orElse(Long.MAX_VALUE);
        for (Call call : calls) {
            if (!call.kind().endsWith("action") || call.status() != 200) {
                continue;
            }
            boolean inFault = windows.stream().anyMatch(w -> call.at() >= w.start() - TimeUnit.SECONDS.toNanos(1)
                    && call.at() <= w.end() + TimeUnit.SECONDS.toNanos(10));
            if (call.at() < firstFault) {
                quiet.add(call.ms());
            } else if (!inFault) {
                outside.add(call.ms());
            }
        }
        quiet.sort(null);
        outside.sort(null);
        long total = calls.size();
        out.append("\n").append(iterations.get()).append(" conversations, ").append(total).append(" requests; ")
                .append(writesAcknowledged.get()).append(" writes acknowledged, ").append(writesChecked.get())
                .append(" read back; ").append(failures.stream().filter(f -> f.contains("lost write")).count())
                .append(" lost.\n");
        // which of the three faces carried the work: E2B's API and envd, OpenHands' Remote Runtime API
        // (its start, and actions at the runtime's URL), and the rest through /api/v1
        long e2b = calls.stream().filter(c -> c.kind().startsWith("e2b") || c.kind().startsWith("envd")).count();
        long remote = calls.stream().filter(c -> c.kind().startsWith("service") || c.kind().equals("start")
                || c.kind().equals("runtime")).count();
        out.append("requests by API: E2B ").append(e2b).append(" (envd ")
                .append(calls.stream().filter(c -> c.kind().startsWith("envd")).count())
                .append("), Remote Runtime API starts, polls and actions at runtimes' URLs ").append(remote)
                .append(", /api/v1 and the rest (the Remote Runtime API's pause, resume and stop among them) ")
                .append(total - e2b - remote).append("\n");
        if (!quiet.isEmpty() && !outside.isEmpty()) {
            out.append("action p99: ").append(Math.round(pct(quiet, 99))).append(" ms before the first fault (")
                    .append(quiet.size()).append(" actions), ").append(Math.round(pct(outside, 99)))
                    .append(" ms outside the fault windows (").append(outside.size()).append(")\n");
            if (!settings.quick() && quiet.size() >= 20 && pct(outside, 99) > 2 * pct(quiet, 99) + 50) {
                failures.add("action p99 outside the faults " + Math.round(pct(outside, 99)) + " ms, over twice the quiet "
                        + Math.round(pct(quiet, 99)) + " ms");
            }
        }
        notes.forEach(n -> out.append("- ").append(n).append("\n"));
        return out.toString();
    }

    // ---------------------------------------------------------------- requests

    private record Call(String kind, long at, int status, boolean retryAfter, double ms, String detail) {
    }

    /** A call through a runtime's service URL (OpenHands' action server, E2B's envd), not Dockyard's APIs. */
    private static boolean throughService(Call call) {
        return call.kind().startsWith("service") || call.kind().startsWith("envd");
    }

    private record Answer(int status, String body, byte[] bytes, boolean retryAfter) {
        String clipped() {
            return body.length() > 300 ? body.substring(0, 300) + "…" : body;
        }
    }

    private Answer send(String kind, HttpRequest.Builder builder, boolean binary) {
        long start = System.nanoTime();
        HttpRequest request = builder.timeout(Duration.ofMinutes(3)).build();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            String body = binary ? "" : new String(response.body(), StandardCharsets.UTF_8);
            boolean retryAfter = response.headers().firstValue("Retry-After").isPresent();
            // an error's body is words, whatever the request was for
            String said = response.statusCode() >= 500 ? new String(response.body(), StandardCharsets.UTF_8) : "";
            String detail = said.substring(0, Math.min(200, said.length()));
            if (response.statusCode() == 502 && body.contains("Read timed out")) {
                // an executor that took the request and never answered: what its container was then
                detail += " [" + sandboxTruth(runtimeIn(request)) + "]";
            }
            calls.add(new Call(kind, start - startedAt, response.statusCode(), retryAfter, ms(start), detail));
            return new Answer(response.statusCode(), body, response.body(), retryAfter);
        } catch (IOException e) {
            calls.add(new Call(kind, start - startedAt, -1, false, ms(start), e.toString()));
            return new Answer(-1, e.toString(), new byte[0], false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(-1, e.toString(), new byte[0], false);
        }
    }

    /**
     * A request retried (on no answer, a 503 while a dependency is down, or a 409 that says when to
     * come back: an Idempotency-Key whose first request is still being answered, or was just freed)
     * until answered or 3 minutes pass.
     */
    private Answer sendWithRetries(String kind, Supplier<HttpRequest.Builder> request) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        Answer answer;
        do {
            answer = send(kind, request.get(), false);
            if (answer.status() >= 0 && answer.status() != 503 && answer.status() != 502
                    && !(answer.status() == 409 && answer.retryAfter())) {
                return answer;
            }
            sleep(1000);
        } while (System.nanoTime() < deadline);
        return answer;
    }

    private Answer action(String id, String action) {
        return send("action", post("/api/v1/runtimes/" + id + "/actions", action, userKey), false);
    }

    /** An action the ledger's way: /api/v1, or the runtime's url with its session key (OpenHands' clients). */
    private Answer action(Ledger ledger, String action) {
        if (!ledger.remote()) {
            return action(ledger.runtimeId, action);
        }
        Supplier<HttpRequest.Builder> request = () -> HttpRequest.newBuilder(URI.create(ledger.url + "/execute_action"))
                .header("X-Session-API-Key", ledger.sessionKey).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"action\":" + action + "}"));
        Answer answer = send("service action", request.get(), false);
        if (answer.status() == 503) {
            // as OpenHands' remote runtime does: a 503 at the runtime's URL is a runtime to resume
            // (paused, or being recovered, when the resume waits for it), then the request once more
            Answer resumed = send("resume", post("/runtime-api/resume", "{\"runtime_id\":\"" + ledger.runtimeId + "\"}",
                    userKey), false);
            if (resumed.status() == 200) {
                answer = send("service action", request.get(), false);
            }
        }
        return answer;
    }

    /**
     * {@code POST /e2b/sandboxes} as E2B's SDK creates a sandbox: no Idempotency-Key (E2B has none),
     * and no retry of a create that went unanswered (the SDK throws): one the server made anyway is
     * found by its metadata and killed at the end, as its owner's cleanup would.
     */
    private Optional<Ledger> createE2b(String conversation) {
        // two thirds from the harness's warm pool (E2B's templateID names a pool first), a third cold
        String template = conversation.hashCode() % 3 == 0 ? "base" : POOL;
        Answer created = send("e2b create", post("/e2b/sandboxes", "{\"templateID\":\"" + template + "\",\"timeout\":900,"
                + "\"metadata\":{\"soak\":\"" + run + "\",\"conversation\":\"" + conversation + "\"}}", userKey), false);
        Matcher id = Pattern.compile("\"sandboxID\":\"(rt[0-9a-f]+)\"").matcher(created.body());
        Matcher token = Pattern.compile("\"envdAccessToken\":\"([^\"]+)\"").matcher(created.body());
        if (created.status() == 201 && id.find() && token.find()) {
            Ledger ledger = Ledger.e2b(id.group(1), token.group(1));
            runtimeIds.add(ledger.runtimeId);
            return Optional.of(ledger);
        }
        if (created.status() == -1 || created.status() == 503 || created.status() == 429) {
            // the server was down, the sandbox did not come up in the create's time, or no capacity:
            // E2B's answers for those, which its SDK raises
            notes.add("an E2B create answered " + created.status());
        } else {
            failures.add("E2B create for " + conversation + " answered " + created.status() + " " + created.clipped());
        }
        sleep(1000);
        return Optional.empty();
    }

    /** A request to the sandbox's envd, routed as E2B's SDK routes it (headers naming sandbox and port). */
    private HttpRequest.Builder envd(Ledger ledger, String path) {
        return HttpRequest.newBuilder(URI.create(services + "/e2b" + path)).header("E2b-Sandbox-Id", ledger.sandboxId)
                .header("E2b-Sandbox-Port", "49983").header("X-Access-Token", ledger.envdToken);
    }

    /**
     * A command through envd's {@code process.Process/Start} (Connect, JSON, server streaming): its
     * stdout decoded from the stream's data events; 200 when the stream ended without an error.
     */
    private Answer envdRun(Ledger ledger, String command) {
        byte[] message = ("{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-l\",\"-c\",\""
                + command.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]}}").getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream envelope = new ByteArrayOutputStream();
        envelope.write(0);
        envelope.writeBytes(new byte[] {(byte) (message.length >>> 24), (byte) (message.length >>> 16),
                (byte) (message.length >>> 8), (byte) message.length});
        envelope.writeBytes(message);
        Answer answer = send("envd command", envd(ledger, "/process.Process/Start").header("Content-Type",
                "application/connect+json").header("Connect-Protocol-Version", "1")
                .POST(HttpRequest.BodyPublishers.ofByteArray(envelope.toByteArray())), true);
        if (answer.status() != 200) {
            return new Answer(answer.status(), new String(answer.bytes(), StandardCharsets.UTF_8), answer.bytes(),
                    answer.retryAfter());
        }
        StringBuilder stdout = new StringBuilder();
        byte[] stream = answer.bytes();
        for (int at = 0; at + 5 <= stream.length; ) {
            int flags = stream[at] & 0xff;
            int length = ((stream[at + 1] & 0xff) << 24) | ((stream[at + 2] & 0xff) << 16) | ((stream[at + 3] & 0xff) << 8)
                    | (stream[at + 4] & 0xff);
            String json = new String(stream, at + 5, Math.min(length, stream.length - at - 5), StandardCharsets.UTF_8);
            at += 5 + length;
            if ((flags & 2) != 0) {
                if (json.contains("\"error\"")) {
                    // envd's error at the end of the stream: the command did not run
                    calls.add(new Call("envd command error", System.nanoTime() - startedAt, 500, false, 0,
                            json.substring(0, Math.min(200, json.length()))));
                    return new Answer(500, json, json.getBytes(StandardCharsets.UTF_8), false);
                }
                return new Answer(200, stdout.toString(), new byte[0], false);
            }
            Matcher out = Pattern.compile("\"stdout\":\"([A-Za-z0-9+/=]*)\"").matcher(json);
            while (out.find()) {
                stdout.append(new String(Base64.getDecoder().decode(out.group(1)), StandardCharsets.UTF_8));
            }
        }
        return new Answer(502, "envd's stream ended without its end-stream message: " + stdout, new byte[0], false);
    }

    /**
     * Deletes the snapshots of the soak's user still there: one whose create went unanswered (the
     * server killed meanwhile) is the user's, unknown to its agent, and not an orphan.
     */
    private void deleteLeftoverSnapshots() {
        removeLeftovers("snapshots", "/api/v1/snapshots", Pattern.compile("\"id\":\"(snap-[0-9a-f]+)\""),
                "/api/v1/snapshots/", "snapshots whose create went unanswered deleted at the end");
    }

    /** Kills what E2B creates left behind (unanswered, so unknown to their agents), as their owner's cleanup would. */
    private void killAbandonedE2b() {
        removeLeftovers("E2B sandboxes", "/e2b/v2/sandboxes?metadata=soak%3D" + run + "&limit=100",
                Pattern.compile("\"sandboxID\":\"(rt[0-9a-f]+)\""), "/e2b/sandboxes/",
                "E2B sandboxes whose create went unanswered (the server killed meanwhile) killed at the end");
    }

    /** Lists what the soak's user still has at {@code list} and deletes each at {@code item} + its id; noted. */
    private void removeLeftovers(String what, String list, Pattern id, String item, String note) {
        Answer listed = send("list " + what, HttpRequest.newBuilder(URI.create(base + list))
                .header("X-API-Key", userKey).GET(), false);
        expect(listed, "list the " + what + " left", 200);
        Matcher found = id.matcher(listed.body());
        int removed = 0;
        while (found.find()) {
            String one = found.group(1);
            expect(send("delete leftover", HttpRequest.newBuilder(URI.create(base + item + one))
                    .header("X-API-Key", userKey).DELETE(), false), "delete one of the " + what + " left", 204, 404);
            removed++;
        }
        if (removed > 0) {
            notes.add(removed + " " + note);
        }
    }

    /**
     * {@code POST /runtime-api/start} of Dockyard's image with an Idempotency-Key (retried with it
     * while unanswered), then {@code GET /runtime-api/runtime/{id}} until its pod is ready, as
     * OpenHands' remote runtime waits. Empty if it ended (noted).
     */
    private Optional<Ledger> startRemote(String session) throws Exception {
        String key = UUID.randomUUID().toString();
        Answer started = sendWithRetries("start", () -> post("/runtime-api/start", "{\"image\":\"dockyard/sandbox:latest\","
                + "\"command\":[\"/bin/true\"],\"working_dir\":\"/workspace\",\"environment\":{},\"session_id\":\""
                + session + "\",\"resource_factor\":1}", userKey).header("Idempotency-Key", key));
        Matcher id = Pattern.compile("\"runtime_id\":\"(rt-[0-9a-f]+)\"").matcher(started.body());
        Matcher url = Pattern.compile("\"url\":\"([^\"]+)\"").matcher(started.body());
        Matcher sessionKey = Pattern.compile("\"session_api_key\":\"([^\"]+)\"").matcher(started.body());
        if (started.status() != 200 && started.status() != 201 || !id.find() || !url.find() || !sessionKey.find()) {
            failures.add("/runtime-api/start of " + session + " answered " + started.status() + " " + started.clipped());
            return Optional.empty();
        }
        runtimeIds.add(id.group(1));
        long askedAt = System.nanoTime() - startedAt;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            Answer runtime = send("runtime", HttpRequest.newBuilder(URI.create(base + "/runtime-api/runtime/" + id.group(1)))
                    .header("X-API-Key", userKey).GET(), false);
            if (runtime.body().contains("\"pod_status\":\"ready\"")) {
                return Optional.of(new Ledger(id.group(1), url.group(1), sessionKey.group(1)));
            }
            if (runtime.body().contains("\"status\":\"error\"") || runtime.body().contains("\"status\":\"stopped\"")) {
                notes.add("/runtime-api/start of " + session + " ended: " + runtime.clipped());
                stopRemote(id.group(1));
                return Optional.empty();
            }
            sleep(serverDown ? 1000 : 250);
        }
        failures.add("/runtime-api/start of " + session + " (" + id.group(1) + ", started at " + secondsOf(askedAt)
                + " s) not ready within 3 min: " + runtimeMessage(id.group(1)));
        stopRemote(id.group(1));
        return Optional.empty();
    }

    private void stopRemote(String runtimeId) {
        Answer stopped = sendWithRetries("stop", () -> post("/runtime-api/stop", "{\"runtime_id\":\"" + runtimeId + "\"}",
                userKey));
        if (stopped.status() != 200 && stopped.status() != 404) {
            failures.add("/runtime-api/stop of " + runtimeId + " answered " + stopped.status() + " " + stopped.clipped());
        }
    }

    private Answer upload(String id, String destination, String name, byte[] content) {
        String boundary = "soak" + UUID.randomUUID().toString().replace("-", "");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(content);
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return send("upload", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id + "/files?destination="
                        + destination)).header("X-API-Key", userKey)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())), false);
    }

    private HttpRequest.Builder post(String path, String body, String key) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("X-API-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private Answer admin(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).header("X-API-Key", adminKey)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return send("admin", request, false);
    }

    private void expect(Answer answer, String what, int... statuses) {
        for (int status : statuses) {
            if (answer.status() == status) {
                return;
            }
        }
        failures.add(what + " answered " + answer.status() + " " + answer.clipped());
    }

    /** A user of its own with a quota of {@code runtimes} and room for them; returns its key. */
    private String newUser(String userId, int runtimes) {
        Answer created = admin("POST", "/api/v1/users", "{\"userId\":\"" + userId + "\",\"role\":\"user\"}");
        Matcher key = API_KEY.matcher(created.body());
        if (!key.find()) {
            throw new IllegalStateException("could not create user " + userId + ": " + created.status() + " " + created.clipped());
        }
        expect(admin("PUT", "/api/v1/users/" + userId + "/quota", "{\"maxRuntimes\":" + runtimes + ",\"maxCpus\":"
                + runtimes + ",\"maxMemoryMb\":" + runtimes * 1024 + ",\"maxSnapshots\":400,\"maxSnapshotMb\":400000}"),
                "set the quota of " + userId, 200);
        return key.group(1);
    }

    /**
     * POST (a provision or a fork) with an Idempotency-Key, retried with the same key until it has
     * an answer, then waited for until READY. Empty if it ended in ERROR (noted with its message).
     */
    private Optional<String> provision(String conversation, String body, String path) throws Exception {
        String key = UUID.randomUUID().toString();
        Answer answer = sendWithRetries("provision", () -> post("/api/v1/" + path, body, userKey)
                .header("Idempotency-Key", key).header("Prefer", "wait=60"));
        Matcher id = ID.matcher(answer.body());
        if (answer.status() == 409 && answer.body().contains("runtime-not-ready")) {
            // a fork of a runtime that is not READY just now (paused, or being recovered from a fault)
            notes.add("a fork was refused while its source was not READY");
            return Optional.empty();
        }
        if ((answer.status() != 201 && answer.status() != 202 && answer.status() != 409) || !id.find()) {
            failures.add("provision of " + conversation + " answered " + answer.status() + " " + answer.clipped());
            return Optional.empty();
        }
        runtimeIds.add(id.group(1));
        long askedAt = System.nanoTime() - startedAt;
        String status = awaitStatus(id.group(1), Set.of("READY", "ERROR", "STOPPED"), Duration.ofMinutes(3));
        if (status.equals("READY")) {
            return Optional.of(id.group(1));
        }
        String message = runtimeMessage(id.group(1));
        if (status.equals("ERROR") && !message.isBlank()) {
            notes.add("provision of " + conversation + " ended in ERROR: " + message);
        } else {
            failures.add("provision of " + conversation + " (" + id.group(1) + ", asked at " + secondsOf(askedAt)
                    + " s) is " + status + " after 3 min (" + message + ")");
        }
        delete(id.group(1));
        return Optional.empty();
    }

    private void delete(String id) {
        Answer deleted = sendWithRetries("delete", () -> HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id))
                .header("X-API-Key", userKey).DELETE());
        if (deleted.status() != 204 && deleted.status() != 404) {
            failures.add("delete of " + id + " answered " + deleted.status() + " " + deleted.clipped());
        }
    }

    private void deleteSnapshotsNamed(String prefix) {
        Answer list = send("list snapshots", HttpRequest.newBuilder(URI.create(base + "/api/v1/snapshots"))
                .header("X-API-Key", userKey).GET(), false);
        Matcher snapshot = Pattern.compile("\"id\":\"([^\"]+)\",\"name\":\"" + Pattern.quote(prefix)).matcher(list.body());
        while (snapshot.find()) {
            String id = snapshot.group(1);
            sendWithRetries("delete snapshot", () -> HttpRequest.newBuilder(URI.create(base + "/api/v1/snapshots/" + id))
                    .header("X-API-Key", userKey).DELETE());
        }
    }

    private String status(String id) {
        Answer answer = send("status", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id))
                .header("X-API-Key", userKey).GET(), false);
        Matcher status = STATUS.matcher(answer.body());
        return answer.status() == 200 && status.find() ? status.group(1) : answer.status() == 404 ? "GONE" : "UNKNOWN";
    }

    private String runtimeMessage(String id) {
        Answer answer = send("status", HttpRequest.newBuilder(URI.create(base + "/api/v1/runtimes/" + id))
                .header("X-API-Key", userKey).GET(), false);
        Matcher message = MESSAGE.matcher(answer.body());
        return message.find() ? message.group(1) : "";
    }

    /** Polls until one of {@code statuses} (or the runtime is gone); the last status seen otherwise. */
    private String awaitStatus(String id, Set<String> statuses, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        String status = "UNKNOWN";
        while (System.nanoTime() < deadline) {
            status = status(id);
            if (statuses.contains(status) || status.equals("GONE")) {
                return status;
            }
            sleep(serverDown ? 1000 : 250);
        }
        return status;
    }

    // ---------------------------------------------------------------- small helpers

    private static String text(Random random, int length) {
        StringBuilder text = new StringBuilder(length + length / 60);
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + random.nextInt(26)));
            if (i % 60 == 59) {
                text.append('\n');
            }
        }
        return text.append('\n').toString();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first file of a zip, or null. */
    private static byte[] unzipOne(byte[] zip) throws IOException {
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            while (in.getNextEntry() != null) {
                return in.readAllBytes();
            }
        }
        return null;
    }

    private static boolean readUntil(InputStream in, String marker, int limit) throws IOException {
        StringBuilder seen = new StringBuilder();
        int c;
        while (seen.length() < limit && (c = in.read()) >= 0) {
            seen.append((char) c);
            if (seen.indexOf(marker) >= 0) {
                return true;
            }
        }
        return false;
    }

    private static final Pattern RUNTIME_ID = Pattern.compile("\\b(rt-?[0-9a-f]{16})\\b");

    /**
     * The runtime a request was about: from its URL (an API path, a runtime's own URL, an E2B
     * sandbox id, which is the runtime id without its dash) or envd's sandbox header; null for none.
     */
    private static String runtimeIn(HttpRequest request) {
        Matcher id = RUNTIME_ID.matcher(request.uri().getPath() + " " + request.headers().firstValue("E2b-Sandbox-Id").orElse(""));
        return id.find() ? (id.group(1).startsWith("rt-") ? id.group(1) : "rt-" + id.group(1).substring(2)) : null;
    }

    /**
     * What the engine and the kernel say of a runtime's container right now: its state as Docker
     * has it, its freezer cgroup's state, and how many of its processes are in each run state
     * (D: uninterruptible, which a frozen process shows). For a hang, to tell a frozen sandbox
     * from a busy or a dead executor.
     */
    private static String sandboxTruth(String runtimeId) {
        if (runtimeId == null) {
            return "no runtime in the URL";
        }
        String container = "dockyard-" + runtimeId;
        try {
            String engine = engineOf(container);
            String state = dockerOn(engine, "inspect", "-f", "{{.Id}} {{.State.Status}} paused={{.State.Paused}}", container).strip();
            String[] parts = state.split(" ", 2);
            if (parts.length < 2) {
                return "docker inspect: " + state;
            }
            String freezer = "?";
            for (Path file : List.of(Path.of("/sys/fs/cgroup/freezer/docker", parts[0], "freezer.state"),
                    Path.of("/sys/fs/cgroup/docker", parts[0], "cgroup.freeze"),
                    Path.of("/sys/fs/cgroup/system.slice/docker-" + parts[0] + ".scope", "cgroup.freeze"))) {
                if (Files.isReadable(file)) {
                    freezer = file.getFileName() + "=" + Files.readString(file).strip();
                    break;
                }
            }
            Map<String, Integer> states = new TreeMap<>();
            String top = parts[1].startsWith("running") ? dockerOn(engine, "top", container, "-eo", "stat") : "";
            top.lines().skip(1).map(String::strip).filter(l -> !l.isEmpty())
                    .forEach(stat -> states.merge(stat.substring(0, 1), 1, Integer::sum));
            return container + " " + parts[1] + ", " + freezer + ", processes by state " + states;
        } catch (Exception e) {
            return "could not inspect " + container + ": " + e;
        }
    }

    /**
     * The engines the soak's sandboxes may be on, as {@code docker -H} hosts ("" is the default one):
     * the second node's too, reached directly for inspection and cleanup, never through its forwarder.
     */
    private static volatile List<String> engines = List.of("");

    /** The engine that has this container; the default one when none has it. */
    private static String engineOf(String container) throws Exception {
        for (String host : engines) {
            if (!dockerOn(host, "ps", "-aq", "--filter", "name=^" + container + "$").isBlank()) {
                return host;
            }
        }
        return "";
    }

    private static String dockerOn(String host, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("docker"));
        if (!host.isEmpty()) {
            command.addAll(List.of("-H", host));
        }
        command.addAll(List.of(args));
        return command(command.toArray(String[]::new));
    }

    private static String docker(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("docker"));
        command.addAll(List.of(args));
        return command(command.toArray(String[]::new));
    }

    private static String command(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end within 60 s");
        }
        return out;
    }

    private static double pct(List<Double> sorted, int p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }

    private long secondsOf(long at) {
        return TimeUnit.NANOSECONDS.toSeconds(at);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void say(String line) {
        System.out.println("[soak " + Instant.now().toString().substring(11, 19) + "] " + line);
    }

    // ---------------------------------------------------------------- docker/soak.sh

    /**
     * A server docker/soak.sh started: Liberty's own scripts, its pid file. A restart gets what
     * soak.sh gave the first start: this process inherited the settings they share, and {@code env}
     * holds its own (its output directory, ports and instance id, with two).
     */
    private record LibertyServer(String wlp, String outputDir, String url, Map<String, String> env) implements Server {
        public long pid() throws Exception {
            return Long.parseLong(Files.readString(Path.of(outputDir, ".pid", "dockyard.pid")).strip());
        }

        public void killNine() throws Exception {
            ProcessHandle process = ProcessHandle.of(pid()).orElseThrow(() -> new IllegalStateException("not running"));
            process.destroyForcibly();
            process.onExit().get(30, TimeUnit.SECONDS);
        }

        public void start() throws Exception {
            ProcessBuilder start = new ProcessBuilder(wlp + "/bin/server", "start", "dockyard").redirectErrorStream(true);
            start.environment().put("WLP_OUTPUT_DIR", outputDir);
            start.environment().putAll(env);
            Process process = start.start();
            String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("server start did not end within 120 s: " + said);
            }
            HttpClient http = HttpClient.newHttpClient();
            // 15 min: beside a survivor serving 40 agents on two cores, a boot took 8 in the runs of 2026-11-30
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
            while (System.nanoTime() < deadline) {
                try {
                    if (http.send(HttpRequest.newBuilder(URI.create(url + "/health/ready")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // still starting
                }
                sleep(200);
            }
            throw new IllegalStateException("the restarted server " + url + " was not ready within 15 min");
        }
    }

    /**
     * {@code java Soak <base-url> <admin-key> <instance> <wlp-dir> <output-dir> [minutes] [agents] [fault-every-seconds]},
     * or {@code --smoke} in place of minutes. Exits 1 when anything failed. The two-control-plane
     * profile (docker/soak.sh's full runs) is given by system properties: {@code soak.planes}
     * ({@code id:port:output-dir,...}, the servers behind the load balancer this process runs on
     * the base URL's port and its services' port), {@code soak.node2}
     * ({@code port:docker-host}, the second node's forwarder this process runs) and
     * {@code soak.database} (the PostgreSQL database, its cluster the harness's own).
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: Soak <base-url> <admin-key> <instance> <wlp-dir> <output-dir> [minutes|--smoke] [agents]");
            System.exit(2);
        }
        Settings settings = args.length > 5 && args[5].equals("--smoke") ? Settings.smoke()
                : Settings.full(args.length > 5 ? Integer.parseInt(args[5]) : 30, args.length > 6 ? Integer.parseInt(args[6]) : 40);
        if (args.length > 7) {
            // a fault every so many seconds instead of the default's two minutes
            settings = new Settings(settings.length(), settings.agents(), settings.minActions(), settings.maxActions(),
                    Duration.ofSeconds(Integer.parseInt(args[7])), settings.poolSize(), settings.seed(), settings.quick());
        }
        // the checkout (wlp is its src/control-plane/target/liberty/wlp): the engine's restart uses its script
        System.setProperty("soak.root", Path.of(args[3]).toAbsolutePath().normalize().resolve("../../../../..")
                .normalize().toString());
        String planes = System.getProperty("soak.planes", "");
        if (planes.isEmpty()) {
            Report report = new Soak(args[0], args[1], args[2], new LibertyServer(args[3], args[4], args[0], Map.of()),
                    settings).run();
            System.exit(report.passed() ? 0 : 1);
        }
        List<Server> servers = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (String plane : planes.split(",")) {
            String[] parts = plane.split(":", 3);
            int port = Integer.parseInt(parts[1]);
            ports.add(port);
            servers.add(new LibertyServer(args[3], parts[2], "http://127.0.0.1:" + port, Map.of("HTTP_PORT",
                    String.valueOf(port), "DOCKYARD_PROXY_PORT", String.valueOf(port + 1000), "DOCKYARD_INSTANCE_ID", parts[0])));
        }
        int frontPort = URI.create(args[0]).getPort();
        Forwarder api = Forwarder.across(frontPort, ports);
        Forwarder services = Forwarder.across(frontPort + 1000, ports.stream().map(p -> p + 1000).toList());
        Soak soak = new Soak(args[0], args[1], args[2], servers, settings).behind(api, services);
        String node2 = System.getProperty("soak.node2", "");
        if (!node2.isEmpty()) {
            String[] parts = node2.split(":", 2);
            int port = Integer.parseInt(parts[0]);
            soak.withSecondNode(Forwarder.on(Path.of(URI.create(parts[1]).getPath()), port), port, parts[1]);
        }
        if (!System.getProperty("soak.database", "").isEmpty()) {
            soak.onPostgres(System.getProperty("soak.database"));
        }
        Report report = soak.run();
        System.exit(report.passed() ? 0 : 1);
    }
}
