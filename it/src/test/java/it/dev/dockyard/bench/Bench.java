package it.dev.dockyard.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Dockyard's benchmark: cold provisions (POST to READY), {@code echo} round trips through the
 * control plane and straight to an executor, 1 MB file write+read pairs, the executor's boot and
 * its container's memory after boot and after a working session. Prints a table.
 *
 * <p>JDK only, so it runs as a single source file against a running control plane:
 * {@code java it/src/test/java/it/dev/dockyard/bench/Bench.java <api-url> <admin-key>}.
 * {@code docker/bench.sh} starts a control plane for it and runs it.
 */
public final class Bench {

    private static final String EMBEDDED = "embedded";
    private static final String LIBERTY = "liberty";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern ID = Pattern.compile("\"id\":\"(rt-[0-9a-f]+)\"");
    private static final Pattern STATUS = Pattern.compile("\"status\":\"([A-Z_]+)\"");
    private static final Pattern CREATED = Pattern.compile("\"createdAt\":\"([^\"]+)\"");
    private static final Pattern READY = Pattern.compile("\"readyAt\":\"([^\"]+)\"");
    private static final Pattern STATUS_MESSAGE = Pattern.compile("\"statusMessage\":\"([^\"]*)\"");

    private final String api;
    private final String key;
    private final List<String[]> rows = new ArrayList<>();

    private Bench(String api, String key) {
        this.api = api.endsWith("/") ? api : api + "/";
        this.key = key;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("executor")) {
            // the executor alone, no control plane: Bench executor [image] [echoes] [nmt]
            Bench bench = new Bench("http://127.0.0.1/", "");
            measure(bench, () -> bench.executorDirect(args.length > 1 ? args[1] : "dockyard/sandbox:latest",
                    args.length > 2 ? Integer.parseInt(args[2]) : 100, args.length > 3 && args[3].equals("nmt")));
        }
        if (args.length < 2) {
            System.err.println("usage: Bench <api-url e.g. http://127.0.0.1:9080/api/v1> <admin-key> [provisions] [echoes]");
            System.exit(2);
        }
        Bench bench = new Bench(args[0], args[1]);
        bench.awaitReady();
        if (args.length > 2 && args[2].equals("density")) {
            // Bench <api-url> <admin-key> density [n]: n idle READY sandboxes at once, nothing else
            measure(bench, () -> bench.density(args.length > 3 ? Integer.parseInt(args[3]) : 300));
        }
        if (args.length > 2 && args[2].equals("throughput")) {
            // Bench <api-url> <admin-key> throughput [seconds] [connections]: echo actions as fast as they go
            measure(bench, () -> bench.throughput(args.length > 3 ? Integer.parseInt(args[3]) : 30,
                    args.length > 4 ? Integer.parseInt(args[4]) : 10));
        }
        if (args.length > 2 && args[2].equals("claims")) {
            // Bench <api-url> <admin-key> claims [n]: n warm claims one after another, where each one's CPU goes
            measure(bench, () -> bench.claimCosts(args.length > 3 ? Integer.parseInt(args[3]) : 40));
        }
        int provisions = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int echoes = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        measure(bench, () -> bench.run(provisions, echoes, args.length > 4 ? Integer.parseInt(args[4]) : 100));
    }

    /**
     * Waits for {@code /health/ready}, as a load balancer would before it sends the server an agent:
     * {@code server start} returns once the application has started, while its warm-up
     * ({@code warmup.StartupWarmUp}) still runs, which the first cold provision would then share
     * two cores with.
     */
    private void awaitReady() throws Exception {
        URI ready = URI.create(api).resolve("/health/ready");
        long start = System.nanoTime();
        long deadline = start + Duration.ofMinutes(3).toNanos();
        HttpResponse<String> last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = HTTP.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (last.statusCode() == 200) {
                    progress("server ready after " + (System.nanoTime() - start) / 1_000_000 + " ms of waiting; "
                            + "warm-up " + find(Pattern.compile("\"tookMs\":([0-9]+)"), last.body()) + " ms");
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the server was not ready within 3 minutes: "
                + (last == null ? "no answer" : last.statusCode() + " " + last.body()));
    }

    /** One way of measuring, as a lambda may throw it. */
    @FunctionalInterface
    private interface Phase {
        void run() throws Exception;
    }

    /**
     * Runs the phase, prints its table (what was measured so far, should it fail, then why) and
     * exits: client threads of a phase that ended early must not keep the JVM (and the bench's
     * server) alive.
     */
    private static void measure(Bench bench, Phase phase) {
        try {
            phase.run();
        } catch (Throwable t) {
            bench.print();
            // a failure on a client thread has no main frames: its cause says where
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            System.err.println("bench failed: " + cause);
            cause.printStackTrace();
            System.exit(1);
        }
        bench.print();
        System.exit(0);
    }

    private void run(int provisions, int echoes, int poolSize) throws Exception {
        Bench bench = this;
        progress("cold provisions");
        bench.coldProvisions(provisions);
        bench.echoThroughControlPlane(echoes);
        progress("executors started by hand");
        bench.executorDirect("dockyard/sandbox:latest", echoes, false);
        bench.remoteRuntimes(Math.max(3, provisions), echoes);
        if (poolSize > 0) {
            progress("pause and resume");
            bench.pauseResume(Math.max(5, provisions));
            bench.warmPools(poolSize);
        }
    }

    private void coldProvisions(int n) throws Exception {
        List<Double> clientMs = new ArrayList<>();
        List<Double> serverMs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String body = "{\"conversationId\":\"bench-" + UUID.randomUUID() + "\"}";
            long start = System.nanoTime();
            HttpResponse<String> answer = send(post("runtimes", body).header("Prefer", "wait=120"));
            double elapsed = (System.nanoTime() - start) / 1e6;
            String runtime = answer.body();
            String id = find(ID, runtime);
            if (answer.statusCode() != 201 || !"READY".equals(find(STATUS, runtime))) {
                throw new IllegalStateException("provision did not become READY: " + answer.statusCode() + " " + runtime);
            }
            clientMs.add(elapsed);
            // where the server's time went ("Ready in 566 ms (create 47, start 176, …)"): the first one
            // after the server's start is the slow one
            progress("cold provision " + (i + 1) + ": " + Math.round(elapsed) + " ms at the client; "
                    + find(STATUS_MESSAGE, runtime));
            serverMs.add((double) Duration.between(Instant.parse(find(CREATED, runtime)),
                    Instant.parse(find(READY, runtime))).toMillis());
            send(request("runtimes/" + id).DELETE());
        }
        row("provision POST→READY (client, wait=120)", clientMs, "ms");
        row("provision createdAt→readyAt (server)", serverMs, "ms");
    }

    private void echoThroughControlPlane(int n) throws Exception {
        String body = "{\"conversationId\":\"bench-echo-" + UUID.randomUUID() + "\"}";
        String id = find(ID, send(post("runtimes", body).header("Prefer", "wait=120")).body());
        try {
            String action = "{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}";
            URI actions = URI.create(api + "runtimes/" + id + "/actions");
            try (KeepAlive connection = new KeepAlive(actions)) {
                List<Double> ms = time(n, () -> expectText(connection.post(actions.getPath(), "X-API-Key", key, action),
                        "hello"));
                row("echo via control plane", ms, "ms");
                // the production JIT keeps compiling the action path for thousands of calls (C2 still
                // took 1.3 CPU-s per 1,000 echoes after 12,000, measured 2026-11-29): the same after
                // 3,000 more, which is what a control plane that has run for a while answers
                for (int i = 0; i < 3000; i++) {
                    expectText(connection.post(actions.getPath(), "X-API-Key", key, action), "hello");
                }
                List<Double> steady = time(n, () -> expectText(connection.post(actions.getPath(), "X-API-Key", key,
                        action), "hello"));
                row("echo via control plane, after 3,000 actions", steady, "ms");
            }

            String payload = "x".repeat(1023) + "\\n";
            String big = payload.repeat(1024);
            String write = "{\"action\":\"write\",\"args\":{\"path\":\"/workspace/bench.txt\",\"content\":\"" + big + "\"}}";
            String read = "{\"action\":\"read\",\"args\":{\"path\":\"/workspace/bench.txt\"}}";
            // timed as the direct pair is (workingSession): one kept-alive socket, bodies encoded once,
            // answers checked as bytes, 50 measured pairs after 100 of warm-up; before 2026-12-01 this
            // row was 10 pairs through java.net.http with string bodies, a client's cost in the figure
            byte[] writeBody = write.getBytes(StandardCharsets.UTF_8);
            byte[] readBody = read.getBytes(StandardCharsets.UTF_8);
            try (KeepAlive connection = new KeepAlive(actions)) {
                List<Double> io = time(Math.max(10, n / 2), () -> {
                    byte[] written = connection.postBytes(actions.getPath(), "X-API-Key", key, writeBody);
                    byte[] answer = connection.postBytes(actions.getPath(), "X-API-Key", key, readBody);
                    if (!foundAtEitherEnd(written, "\"observation\":\"write\"")) {
                        throw new IllegalStateException("unexpected write: " + head(written));
                    }
                    if (answer.length < 1024 * 1024 || !foundAtEitherEnd(answer, "\"observation\":\"read\"")) {
                        throw new IllegalStateException("unexpected read: " + head(answer));
                    }
                });
                row("1 MB write+read via control plane", io, "ms");
            }
        } finally {
            send(request("runtimes/" + id).DELETE());
        }
    }

    /**
     * OpenHands' Remote Runtime API with an image running its own server (the base image's python3
     * serving HTTP on 60000): /start's answer, /start until /sessions says running, and a GET
     * through the runtime's service URL (the proxy) on a kept-alive client connection.
     */
    private void remoteRuntimes(int n, int gets) throws Exception {
        String root = api.replaceFirst("api/v1/$", "");
        List<Double> answered = new ArrayList<>();
        List<Double> running = new ArrayList<>();
        List<String[]> started = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                String session = "bench-" + UUID.randomUUID();
                String body = "{\"image\":\"dockyard/sandbox-base:bookworm\",\"command\":[\"python3\",\"-m\","
                        + "\"http.server\",\"60000\"],\"working_dir\":\"/tmp\",\"environment\":{},"
                        + "\"session_id\":\"" + session + "\",\"resource_factor\":1,\"run_as_user\":1000}";
                long start = System.nanoTime();
                HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(root + "runtime-api/start"))
                        .header("X-API-Key", key).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
                answered.add((System.nanoTime() - start) / 1e6);
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException("/start answered " + answer.statusCode() + " " + answer.body());
                }
                String runtimeId = find(Pattern.compile("\"runtime_id\":\"([^\"]+)\""), answer.body());
                String url = find(Pattern.compile("\"url\":\"([^\"]+)\""), answer.body());
                String serviceKey = find(Pattern.compile("\"session_api_key\":\"([^\"]+)\""), answer.body());
                started.add(new String[] {runtimeId, url, serviceKey});
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (true) {
                    String now = send(HttpRequest.newBuilder(URI.create(root + "runtime-api/sessions/" + session))
                            .header("X-API-Key", key).GET()).body();
                    if (now.contains("\"status\":\"running\"")) {
                        break;
                    }
                    if (now.contains("\"status\":\"error\"") || System.nanoTime() > deadline) {
                        throw new IllegalStateException("runtime never ran: " + now);
                    }
                    Thread.sleep(10);
                }
                running.add((System.nanoTime() - start) / 1e6);
            }
            row("runtime-api /start answered (own server)", answered, "ms");
            row("runtime-api /start → running", running, "ms");
            String[] first = started.get(0);
            URI page = URI.create(first[1] + "/");
            try (KeepAlive connection = new KeepAlive(page)) {
                List<Double> ms = time(gets, () -> expectText(connection.get(page.getPath(), "X-Session-API-Key",
                        first[2]), "Directory listing"));
                row("GET through the service URL proxy", ms, "ms");
            }
        } finally {
            for (String[] runtime : started) {
                send(HttpRequest.newBuilder(URI.create(root + "runtime-api/stop")).header("X-API-Key", key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"runtime_id\":\"" + runtime[0] + "\"}")));
            }
        }
    }

    /** An executor started by hand with a known key: the protocol's own cost, without the control plane. */
    private void pauseResume(int n) throws Exception {
        String body = "{\"conversationId\":\"bench-pause-" + UUID.randomUUID() + "\"}";
        String id = find(ID, send(post("runtimes", body).header("Prefer", "wait=120")).body());
        try {
            List<Double> pause = new ArrayList<>();
            List<Double> resume = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long start = System.nanoTime();
                expect(send(post("runtimes/" + id + "/pause", "")), "PAUSED");
                pause.add((System.nanoTime() - start) / 1e6);
                start = System.nanoTime();
                expect(send(post("runtimes/" + id + "/resume", "")), "READY");
                resume.add((System.nanoTime() - start) / 1e6);
            }
            row("pause (READY → PAUSED answered)", pause, "ms");
            row("resume (PAUSED → READY answered)", resume, "ms");
        } finally {
            send(request("runtimes/" + id).DELETE());
        }
    }

    /**
     * Warm pools: claim → READY (the POST's answer, configuration injected) by 1 and by 20
     * concurrent clients; time to interactive by ComputeSDK's method (create → first command
     * completed: POST, then {@code echo}) sequentially and as a burst all at once; bursts of 10
     * and 50 provisions against a pool of 10 (until every one is READY); and density: the memory
     * of each idle READY sandbox. The pool uses the default sandbox settings, so POSTs without
     * settings are served from it; it is deleted at the end.
     */
    private void warmPools(int size) throws Exception {
        String pool = "bench-" + UUID.randomUUID().toString().substring(0, 6);
        putPool(pool, size, 4);
        try {
            progress("filling a pool of " + size);
            awaitPool(pool, size);
            row("density: memory per idle READY sandbox", memoryOfPool(pool), "MiB");

            // ComputeSDK's method: create → first command done, per sandbox; sandboxes are deleted
            // after each phase, so that removing them is not part of anyone's measurement
            progress("time to interactive, burst of " + size);
            List<Claim> burst = Collections.synchronizedList(new ArrayList<>());
            ExecutorService many = Executors.newFixedThreadPool(size);
            List<CompletableFuture<Void>> burstAll = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                burstAll.add(CompletableFuture.runAsync(() -> burst.add(claim("echo hello")), many));
            }
            burstAll.forEach(CompletableFuture::join);
            many.shutdown();
            row("time to interactive, burst of " + size + " (pool)", millis(burst), "ms");
            deleteAll(burst);

            progress("refilling, then time to interactive, sequential x" + size);
            awaitPool(pool, size);
            List<Claim> sequential = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                sequential.add(claim("echo hello"));
            }
            row("time to interactive, sequential (pool)", millis(sequential), "ms");
            deleteAll(sequential);

            int claims = Math.min(size, 40);
            progress("refilling " + claims + ", then claim→READY by 1 and by 20 clients");
            awaitPool(pool, claims);
            List<Claim> one = new ArrayList<>();
            for (int i = 0; i < claims / 2; i++) {
                one.add(claim(null));
            }
            row("warm claim→READY, 1 client", millis(one), "ms");
            deleteAll(one);
            awaitPool(pool, 20);
            List<Claim> twenty = Collections.synchronizedList(new ArrayList<>());
            ExecutorService threads = Executors.newFixedThreadPool(20);
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int c = 0; c < 20; c++) {
                all.add(CompletableFuture.runAsync(() -> twenty.add(claim(null)), threads));
            }
            all.forEach(CompletableFuture::join);
            threads.shutdown();
            row("warm claim→READY, 20 concurrent clients", millis(twenty), "ms");
            deleteAll(twenty);

            progress("bursts of 10 and 50 against a pool of 10");
            // exactly ten: the surplus of the larger pool is given back first
            putPool(pool, 10, 4);
            awaitPoolOf(pool, 10);
            row("burst of 10 with a pool of 10: all READY", List.of(burstUntilAllReady(10)), "ms");
            awaitPoolOf(pool, 10);
            row("burst of 50 with a pool of 10: all READY", List.of(burstUntilAllReady(50)), "ms");
        } finally {
            send(request("pools/" + pool).DELETE());
        }
    }

    /**
     * Density: {@code n} runtimes READY at once on the default node (cold, in the node's turns),
     * the memory of each sandbox and what the host lost per sandbox, then one {@code echo} to each,
     * one after another, after they sat idle for a while (the "touched one after another").
     */
    private void density(int n) throws Exception {
        if (n < 2) {
            throw new IllegalArgumentException("density needs at least 2 runtimes: one warms the action path up");
        }
        long availableBefore = memAvailableKib();
        progress("density: " + n + " runtimes at once");
        ExecutorService threads = Executors.newFixedThreadPool(Math.min(n, 100));
        long start = System.nanoTime();
        List<CompletableFuture<String>> posts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            posts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    HttpResponse<String> answer = send(post("runtimes", "{\"conversationId\":\"bench-density-"
                            + UUID.randomUUID() + "\"}").header("Prefer", "wait=300"));
                    String id = find(ID, answer.body());
                    if (answer.statusCode() != 201 || id == null) {
                        throw new IllegalStateException("provision: " + answer.statusCode() + " " + answer.body());
                    }
                    return id;
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, threads));
        }
        List<String> ids = new ArrayList<>();
        try {
            for (CompletableFuture<String> post : posts) {
                ids.add(post.join());
            }
            threads.shutdown();
            awaitAllReady(ids);
            row("density: " + n + " runtimes POSTed at once, all READY", List.of((System.nanoTime() - start) / 1e6),
                    "ms");
            // idle: their executors' boot work is over and nothing touches them but the first, on
            // which the control plane's own action path is warmed up meanwhile (a fresh server runs
            // its first thousands of actions interpreted or C1-compiled, 5 to 20 times slower): the
            // echoes below then measure idle sandboxes, not a cold control plane
            progress("density: " + n + " READY; idle for 30 s (the control plane's action path warmed on one)");
            long idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int i = 0; i < 3_000 && System.nanoTime() < idleUntil; i++) {
                expect(send(post("runtimes/" + ids.get(0) + "/actions",
                        "{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}")), "hello");
            }
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(idleUntil - System.nanoTime())));
            // the first one worked: the figure is the idle ones' (the host's loss below is all n's)
            row("density: memory of each of " + (n - 1) + " idle READY sandboxes",
                    memoryOf(ids.subList(1, ids.size()).stream().map(id -> "dockyard-" + id).toList()), "MiB");
            row("density: host memory per sandbox (MemAvailable before − after, / " + n + ")",
                    List.of((availableBefore - memAvailableKib()) / 1024.0 / n), "MiB");
            progress("density: echo to each, one after another");
            List<Double> echoes = new ArrayList<>();
            for (String id : ids.subList(1, ids.size())) {
                long sent = System.nanoTime();
                expect(send(post("runtimes/" + id + "/actions",
                        "{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}")), "hello");
                echoes.add((System.nanoTime() - sent) / 1e6);
            }
            row("density: echo to each of " + (n - 1) + " idle sandboxes, one after another", echoes, "ms");
        } finally {
            threads.shutdownNow();
            progress("density: deleting " + ids.size());
            for (String id : ids) {
                send(request("runtimes/" + id).DELETE());
            }
        }
    }

    /**
     * Throughput: {@code connections} clients, each on a kept-alive HTTP/1.1 connection of its own,
     * send {@code echo} actions one after another for {@code seconds} (after as long again to warm
     * up) to 10 READY runtimes, in turn. Reports actions per second, their latency, and the CPU the
     * control plane's JVM and the sandboxes spent per action (from /proc and the containers' cgroups).
     */
    private void throughput(int seconds, int connections) throws Exception {
        progress("throughput: 10 runtimes");
        List<String> ids = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(connections);
        try {
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> answer = send(post("runtimes", "{\"conversationId\":\"bench-throughput-"
                        + UUID.randomUUID() + "\"}").header("Prefer", "wait=120"));
                if (answer.statusCode() != 201 || !"READY".equals(find(STATUS, answer.body()))) {
                    throw new IllegalStateException("provision did not become READY: " + answer.statusCode() + " "
                            + answer.body());
                }
                ids.add(find(ID, answer.body()));
            }
            List<String> containers = ids.stream().map(id -> "dockyard-" + id).toList();
            // wrk, where it is installed (docker/bench.sh installs it), is the load: a client in C that
            // spends a tenth of a millisecond per request. The JDK's HttpClient spends about 1.3 ms,
            // which on a 2-core machine takes CPU the server would otherwise have had.
            Optional<Path> wrk = wrkOnPath();
            String client = wrk.isPresent() ? "wrk" : "JDK HttpClient";
            progress("throughput: warming up for " + seconds + " s (client: " + client + ")");
            Load warm = wrk.isPresent() ? wrk(wrk.get(), ids, connections, seconds)
                    : echoes(ids, connections, seconds, threads);
            warm.check();
            long serverBefore = serverCpuNanos();
            long sandboxesBefore = cgroupCpuNanos(containers);
            progress("throughput: measuring for " + seconds + " s at " + connections + " connections");
            Load load = wrk.isPresent() ? wrk(wrk.get(), ids, connections, seconds)
                    : echoes(ids, connections, seconds, threads);
            long serverAfter = serverCpuNanos();
            long sandboxesAfter = cgroupCpuNanos(containers);
            load.check();
            String at = connections + " connections, " + client;
            row("throughput: echo actions per second, " + at, List.of(load.actions() / load.seconds()), "1/s");
            rows.add(new String[] {"throughput: echo latency, " + at, String.valueOf(load.actions()),
                    fmt(load.p50()), fmt(load.p99()), fmt(load.min()), fmt(load.max()), "ms"});
            if (serverBefore >= 0 && serverAfter >= 0) {
                row("throughput: control-plane CPU per action",
                        List.of((serverAfter - serverBefore) / 1e6 / load.actions()), "ms");
            }
            if (sandboxesBefore >= 0 && sandboxesAfter >= 0) {
                row("throughput: sandbox CPU per action",
                        List.of((sandboxesAfter - sandboxesBefore) / 1e6 / load.actions()), "ms");
            }
            if (load.clientCpuSeconds() >= 0) {
                row("throughput: client (" + client + ") CPU per action",
                        List.of(load.clientCpuSeconds() * 1e3 / load.actions()), "ms");
            }
        } finally {
            threads.shutdownNow();
            for (String id : ids) {
                send(request("runtimes/" + id).DELETE());
            }
        }
    }

    /**
     * What one throughput run measured: answered actions, answers that were not a 200 saying hello
     * (with the first of them), latency percentiles in ms, and the client's own CPU (-1: unknown).
     */
    private record Load(long actions, long failed, String firstFailure, double seconds, double p50, double p99,
            double min, double max, double clientCpuSeconds) {

        void check() {
            if (actions == 0 || failed > 0) {
                throw new IllegalStateException(failed + " of " + actions + " echoes failed; the first: " + firstFailure);
            }
        }
    }

    /**
     * The wrk script: echo actions to the runtimes in turn; every answer must be a 200 whose output
     * is hello and whose exit code is 0 (the command itself is in every answer, so "hello" alone
     * would prove nothing). The key comes from the environment, not the command line, which
     * {@code ps} shows.
     */
    private static final String WRK_SCRIPT = """
            local body = '{"action":"run","args":{"command":"echo hello"}}'
            local paths, n = {}, 0
            failed, first = 0, ""
            function init(args)
              for i = 1, #args do paths[#paths + 1] = args[i] end
              n = start or 0
              wrk.headers["X-API-Key"] = os.getenv("DOCKYARD_BENCH_KEY")
              wrk.headers["Content-Type"] = "application/json"
            end
            function request()
              n = n % #paths + 1
              return wrk.format("POST", paths[n], nil, body)
            end
            function response(status, headers, answer)
              if status ~= 200 or not string.find(answer, '"content":%s*"hello')
                  or not string.find(answer, '"exit_code":%s*0[,}]') then
                failed = failed + 1
                if first == "" then first = status .. " " .. string.sub(answer, 1, 300) end
              end
            end
            local threads = {}
            function setup(thread)
              table.insert(threads, thread)
              thread:set("start", #threads * 5)
            end
            function done(summary, latency, requests)
              local all, firstFailure = 0, ""
              for _, t in ipairs(threads) do
                all = all + t:get("failed")
                if firstFailure == "" then firstFailure = t:get("first") end
              end
              local e = summary.errors
              local socket = e.connect + e.read + e.write + e.timeout
              if socket > 0 then
                firstFailure = string.format("socket errors: %d connect, %d read, %d write, %d timeout; %s",
                  e.connect, e.read, e.write, e.timeout, firstFailure)
              end
              io.write(string.format("dockyard-bench %d %d %.3f %.3f %.3f %.3f %.3f %.3f\\n", summary.requests,
                all + socket, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
                latency.min / 1e3, latency.max / 1e3, os.clock()))
              io.write("dockyard-bench-first " .. string.gsub(firstFailure, "%s+", " ") .. "\\n")
            end
            """;

    /**
     * One wrk run: {@code connections} kept-alive connections on one or two threads (wrk gives each
     * thread the same number, so an odd count runs on one), echoes for {@code seconds}. Its latency
     * percentiles are wrk's own, which it corrects for coordinated omission (samples added for
     * answers slower than the mean interval), so they are at least the raw ones.
     */
    private Load wrk(Path wrk, List<String> ids, int connections, int seconds) throws Exception {
        Path script = Files.createTempFile("dockyard-bench", ".lua");
        Path out = Files.createTempFile("dockyard-bench", ".out");
        try {
            Files.writeString(script, WRK_SCRIPT);
            URI base = URI.create(api);
            int threads = connections >= 2 && connections % 2 == 0 ? 2 : 1;
            List<String> command = new ArrayList<>(List.of(wrk.toString(), "-t", String.valueOf(threads), "-c",
                    String.valueOf(connections), "-d", seconds + "s", "--timeout", "30s", "-s", script.toString(),
                    base.getScheme() + "://" + base.getAuthority(), "--"));
            ids.forEach(id -> command.add(base.getPath() + "runtimes/" + id + "/actions"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
            builder.environment().put("DOCKYARD_BENCH_KEY", key);
            Process process = builder.start();
            if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("wrk did not end within " + (seconds + 60) + " s");
            }
            String printed = Files.readString(out);
            if (process.exitValue() != 0) {
                throw new IllegalStateException("wrk failed: " + printed);
            }
            String[] f = printed.lines().filter(l -> l.startsWith("dockyard-bench ")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("wrk printed no result: " + printed)).split(" ");
            String first = printed.lines().filter(l -> l.startsWith("dockyard-bench-first ")).findFirst().orElse("")
                    .replaceFirst("^dockyard-bench-first ", "");
            return new Load(Long.parseLong(f[1]), Long.parseLong(f[2]), first, Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                    Double.parseDouble(f[7]), Double.parseDouble(f[8]));
        } finally {
            Files.deleteIfExists(script);
            Files.deleteIfExists(out);
        }
    }

    /** wrk on the PATH, if it is there. */
    private static Optional<Path> wrkOnPath() {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":")).filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, "wrk")).filter(Files::isExecutable).findFirst();
    }

    /** Whether an echo answer is a 200 whose output is hello and whose exit code is 0. */
    private static boolean echoed(HttpResponse<String> answer) {
        return answer.statusCode() == 200 && ECHOED.matcher(answer.body()).find()
                && EXITED_0.matcher(answer.body()).find();
    }

    private static final Pattern ECHOED = Pattern.compile("\"content\":\\s*\"hello");
    private static final Pattern EXITED_0 = Pattern.compile("\"exit_code\":\\s*0[,}]");

    /** Each of {@code connections} clients sends echoes until {@code seconds} pass. */
    private Load echoes(List<String> ids, int connections, int seconds, ExecutorService threads)
            throws Exception {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
        List<CompletableFuture<List<Double>>> clients = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int first = c;
            clients.add(CompletableFuture.supplyAsync(() -> {
                // a client of its own: one kept-alive connection, as an agent's client has
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                List<Double> ms = new ArrayList<>();
                try {
                    for (int i = first; System.nanoTime() < deadline; i++) {
                        HttpRequest echo = post("runtimes/" + ids.get(i % ids.size()) + "/actions",
                                "{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}").build();
                        long sent = System.nanoTime();
                        HttpResponse<String> answer = client.send(echo, HttpResponse.BodyHandlers.ofString());
                        if (!echoed(answer)) {
                            throw new IllegalStateException("unexpected answer " + answer.statusCode() + ": "
                                    + answer.body());
                        }
                        ms.add((System.nanoTime() - sent) / 1e6);
                    }
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return ms;
            }, threads));
        }
        List<Double> all = new ArrayList<>();
        for (CompletableFuture<List<Double>> client : clients) {
            all.addAll(client.join());
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        if (all.isEmpty()) {
            return new Load(0, 0, "no echo was answered in " + seconds + " s", elapsed, 0, 0, 0, 0, -1);
        }
        Collections.sort(all);
        // this client shares the JVM with the bench's bookkeeping: its CPU is not told apart
        return new Load(all.size(), 0, "", elapsed, percentile(all, 50), percentile(all, 99), all.get(0),
                all.get(all.size() - 1), -1);
    }

    /**
     * CPU time (user + system) of the bench's server JVM so far, from its pid file under
     * WLP_OUTPUT_DIR (docker/bench.sh exports it); -1 when it cannot be read.
     */
    private static long serverCpuNanos() {
        try {
            String out = System.getenv("WLP_OUTPUT_DIR");
            if (out == null) {
                return -1;
            }
            String pid = Files.readString(Path.of(out, ".pid", "dockyard.pid")).strip();
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // utime and stime, fields 14 and 15 of stat (11 and 12 after the command): in clock ticks of 10 ms
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** CPU time of the containers so far, from their cgroups (v1 or v2, either driver); -1 when not found. */
    private static long cgroupCpuNanos(List<String> containers) throws Exception {
        long total = 0;
        for (String name : containers) {
            long used = cgroupCpuNanos(docker("inspect", "-f", "{{.Id}}", name).strip());
            if (used < 0) {
                return -1;
            }
            total += used;
        }
        return total;
    }

    /** CPU time so far of the container with this full id, from its cgroup (v1 or v2, either driver); -1 when not found. */
    private static long cgroupCpuNanos(String id) throws IOException {
        Path usage = Path.of("/sys/fs/cgroup/cpuacct/docker", id, "cpuacct.usage");
        if (Files.isReadable(usage)) {
            // cgroup v1: nanoseconds
            return Long.parseLong(Files.readString(usage).strip());
        }
        for (Path stat : List.of(Path.of("/sys/fs/cgroup/docker", id, "cpu.stat"),
                Path.of("/sys/fs/cgroup/system.slice", "docker-" + id + ".scope", "cpu.stat"))) {
            if (Files.isReadable(stat)) {
                for (String line : Files.readAllLines(stat)) {
                    if (line.startsWith("usage_usec ")) {
                        return Long.parseLong(line.substring("usage_usec ".length()).strip()) * 1000;
                    }
                }
            }
        }
        return -1;
    }

    /** Waits (bounded: 10 min) until every runtime is READY; any other end fails the phase. */
    private void awaitAllReady(List<String> ids) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        Pattern status = Pattern.compile("\"status\":\"([A-Z_]+)\"");
        for (String id : ids) {
            while (true) {
                String body = send(request("runtimes/" + id)).body();
                String now = find(status, body);
                if ("READY".equals(now)) {
                    break;
                }
                if (now == null || now.startsWith("ERROR") || now.equals("STOPPED")) {
                    throw new IllegalStateException(id + " ended " + now + ": " + body);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(id + " not READY within 10 min: " + body);
                }
                Thread.sleep(500);
            }
        }
    }

    /** The host's MemAvailable (KiB), from /proc/meminfo. */
    private static long memAvailableKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no MemAvailable in /proc/meminfo");
    }

    private static void progress(String what) {
        System.err.println("[bench " + Instant.now() + "] " + what);
    }

    private void putPool(String pool, int size, int maxBooting) throws Exception {
        HttpResponse<String> answer = send(request("pools/" + pool).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"size\":" + size + ",\"maxBooting\":" + maxBooting + "}")));
        if (answer.statusCode() != 201 && answer.statusCode() != 200) {
            throw new IllegalStateException("PUT pool: " + answer.statusCode() + " " + answer.body());
        }
    }

    private void awaitPool(String pool, int size) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
        Pattern ready = Pattern.compile("\"ready\":(\\d+)");
        while (true) {
            String body = send(request("pools/" + pool)).body();
            String count = find(ready, body);
            if (count != null && Integer.parseInt(count) >= size) {
                // the runtimes just deleted are gone too: their sandboxes' memory is back
                Thread.sleep(2000);
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("pool never filled: " + body);
            }
            Thread.sleep(500);
        }
    }

    /** Waits until the pool holds exactly {@code size} ready members and boots none. */
    private void awaitPoolOf(String pool, int size) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        Pattern ready = Pattern.compile("\"ready\":(\\d+)");
        Pattern booting = Pattern.compile("\"booting\":(\\d+)");
        while (true) {
            String body = send(request("pools/" + pool)).body();
            if (String.valueOf(size).equals(find(ready, body)) && "0".equals(find(booting, body))) {
                Thread.sleep(2000);
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the pool never held exactly " + size + ": " + body);
            }
            Thread.sleep(500);
        }
    }

    private List<Double> memoryOfPool(String pool) throws Exception {
        String ids = docker("ps", "-q", "--filter", "label=dev.dockyard.pool=" + pool);
        return memoryOf(ids.lines().filter(l -> !l.isBlank()).toList());
    }

    /** Each container's memory (MiB) as {@code docker stats} reports it. */
    private static List<Double> memoryOf(List<String> containers) throws Exception {
        List<String> args = new ArrayList<>(List.of("stats", "--no-stream", "--format", "{{.MemUsage}}"));
        args.addAll(containers);
        List<Double> mib = new ArrayList<>();
        for (String line : docker(args.toArray(String[]::new)).lines().toList()) {
            String used = line.split("/")[0].strip();
            double value = Double.parseDouble(used.replaceAll("[^0-9.]", ""));
            mib.add(used.endsWith("GiB") ? value * 1024 : used.endsWith("KiB") ? value / 1024 : value);
        }
        return mib;
    }

    /**
     * Where a warm claim's CPU goes: {@code n} claims one after another from a full pool, each
     * followed by an {@code echo}, after {@code n} of warm-up. Per claim: the wall time of the
     * POST and of the echo, the CPU of the claimed sandbox (its cgroup, in microseconds), and
     * over the whole round the mean CPU per claim of the control plane, the engine's processes
     * (dockerd, containerd, their shims and proxies) and new sandboxes (refills the claims set
     * off). The pool is twice {@code n}, so no claim waits for a refill.
     */
    private void claimCosts(int n) throws Exception {
        String pool = "bench-" + UUID.randomUUID().toString().substring(0, 6);
        putPool(pool, 2 * n, 4);
        try {
            progress("filling a pool of " + 2 * n);
            awaitPool(pool, 2 * n);
            progress(n + " claims of warm-up");
            List<Claim> warmUp = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                warmUp.add(claim("echo hello"));
            }
            deleteAll(warmUp);
            awaitPoolOf(pool, 2 * n);
            Thread.sleep(3000);
            progress(n + " claims measured");
            List<Double> claimMs = new ArrayList<>();
            List<Double> echoMs = new ArrayList<>();
            List<Double> sandboxMs = new ArrayList<>();
            List<Claim> measured = new ArrayList<>();
            Map<String, Long> before = containerCpuNanos();
            long server = serverCpuNanos();
            long engine = engineCpuNanos();
            for (int i = 0; i < n; i++) {
                Map<String, Long> sandboxes = containerCpuNanos();
                String body = "{\"conversationId\":\"bench-claim-" + UUID.randomUUID() + "\"}";
                long start = System.nanoTime();
                HttpResponse<String> answer = send(post("runtimes", body).header("Prefer", "wait=120"));
                long claimed = System.nanoTime();
                String id = find(ID, answer.body());
                if (answer.statusCode() != 201 || !answer.body().contains("\"status\":\"READY\"")) {
                    throw new IllegalStateException("provision: " + answer.statusCode() + " " + answer.body());
                }
                expect(send(post("runtimes/" + id + "/actions", "{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}")),
                        "hello");
                long echoed = System.nanoTime();
                claimMs.add((claimed - start) / 1e6);
                echoMs.add((echoed - claimed) / 1e6);
                measured.add(new Claim(id, (echoed - start) / 1e6));
                // the claimed sandbox is the member whose CPU moved most
                long most = 0;
                for (Map.Entry<String, Long> now : containerCpuNanos().entrySet()) {
                    Long was = sandboxes.get(now.getKey());
                    if (was != null) {
                        most = Math.max(most, now.getValue() - was);
                    }
                }
                sandboxMs.add(most / 1e6);
            }
            long serverUsed = serverCpuNanos() - server;
            long engineUsed = engineCpuNanos() - engine;
            long refills = 0;
            for (Map.Entry<String, Long> now : containerCpuNanos().entrySet()) {
                if (!before.containsKey(now.getKey())) {
                    refills += now.getValue();
                }
            }
            row("warm claim: POST → READY answered", claimMs, "ms");
            row("warm claim: then echo answered", echoMs, "ms");
            row("warm claim + echo: CPU of the claimed sandbox", sandboxMs, "ms");
            if (server >= 0) {
                row("warm claim + echo: control plane CPU, mean", List.of(serverUsed / 1e6 / n), "ms");
            }
            row("warm claim + echo: engine CPU, mean", List.of(engineUsed / 1e6 / n), "ms");
            row("warm claim + echo: refills' CPU meanwhile, mean", List.of(refills / 1e6 / n), "ms");
            deleteAll(measured);
        } finally {
            send(request("pools/" + pool).DELETE());
        }
    }

    /** Every container's CPU so far by its id, from the cgroups of the cgroupfs driver (v1 or v2); empty elsewhere. */
    private static Map<String, Long> containerCpuNanos() throws IOException {
        Map<String, Long> cpu = new HashMap<>();
        for (Path root : List.of(Path.of("/sys/fs/cgroup/cpuacct/docker"), Path.of("/sys/fs/cgroup/docker"))) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (var dirs = Files.list(root)) {
                for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                    try {
                        long used = cgroupCpuNanos(dir.getFileName().toString());
                        if (used >= 0) {
                            cpu.put(dir.getFileName().toString(), used);
                        }
                    } catch (IOException | NumberFormatException gone) {
                        // removed meanwhile
                    }
                }
            }
            return cpu;
        }
        return cpu;
    }

    /** CPU so far of the engine's processes: dockerd, containerd, their shims and port proxies. */
    private static long engineCpuNanos() {
        long total = 0;
        for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
            String command = p.info().command().orElse("");
            String name = command.substring(command.lastIndexOf('/') + 1);
            if (name.equals("dockerd") || name.startsWith("containerd") || name.equals("docker-proxy")) {
                total += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
            }
        }
        return total;
    }

    /** One measured runtime: its id (deleted after the phase) and its milliseconds. */
    private record Claim(String id, double ms) {
    }

    private static List<Double> millis(List<Claim> claims) {
        return claims.stream().map(Claim::ms).toList();
    }

    private void deleteAll(List<Claim> claims) throws Exception {
        for (Claim c : claims) {
            send(request("runtimes/" + c.id()).DELETE());
        }
    }

    /**
     * One runtime from POST to READY (and, with a command, until that command's observation is
     * back): the milliseconds until READY or until the command completed. The POST carries an
     * Idempotency-Key, so the one retry a connection the server had closed needs is safe.
     */
    private Claim claim(String command) {
        try {
            String body = "{\"conversationId\":\"bench-warm-" + UUID.randomUUID() + "\"}";
            String idempotency = UUID.randomUUID().toString();
            long start = System.nanoTime();
            HttpResponse<String> answer;
            try {
                answer = send(post("runtimes", body).header("Prefer", "wait=120").header("Idempotency-Key", idempotency));
            } catch (IOException stale) {
                answer = send(post("runtimes", body).header("Prefer", "wait=120").header("Idempotency-Key", idempotency));
            }
            String id = find(ID, answer.body());
            if (answer.statusCode() != 201) {
                throw new IllegalStateException("provision: " + answer.statusCode() + " " + answer.body());
            }
            if (command != null) {
                expect(send(post("runtimes/" + id + "/actions", "{\"action\":\"run\",\"args\":{\"command\":\""
                        + command + "\"}}")), "hello");
            }
            return new Claim(id, (System.nanoTime() - start) / 1e6);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code n} POSTs at once; the milliseconds until the last one is READY. */
    private double burstUntilAllReady(int n) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(n);
        List<CompletableFuture<String>> posts = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            posts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    HttpResponse<String> answer = send(post("runtimes", "{\"conversationId\":\"bench-burst-"
                            + UUID.randomUUID() + "\"}").header("Prefer", "wait=300"));
                    if (answer.statusCode() != 201 || !answer.body().contains("\"status\":\"READY\"")) {
                        throw new IllegalStateException("provision: " + answer.statusCode() + " " + answer.body());
                    }
                    return answer.body();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, threads));
        }
        List<String> bodies = posts.stream().map(CompletableFuture::join).toList();
        double ms = (System.nanoTime() - start) / 1e6;
        threads.shutdown();
        long warm = bodies.stream().filter(b -> b.contains("from pool")).count();
        progress("burst of " + n + ": all READY, " + warm + " from the pool, " + (n - warm) + " cold");
        for (String body : bodies) {
            send(request("runtimes/" + find(ID, body)).DELETE());
        }
        return ms;
    }

    /**
     * Executors started by hand ({@code docker run} with a known key, port on 127.0.0.1): the
     * protocol's own cost, without the control plane. Boot to {@code /ready} and the container's
     * memory after boot (3 sandboxes); on one of them, {@code echo} and the 1 MB write+read pair on
     * one kept-alive socket, a working session ({@link #workingSession}) and the memory after it.
     * With {@code nmt}, one more sandbox runs with native memory tracking and prints the JVM's
     * heap, metaspace, code cache and thread stacks after boot and after the same work.
     */
    private void executorDirect(String image, int n, boolean nmt) throws Exception {
        // the engine's own floor: docker run -d of a container that only sleeps, its port published
        List<Double> floor = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String name = "dockyard-bench-floor-" + UUID.randomUUID().toString().substring(0, 8);
            long start = System.nanoTime();
            docker("run", "-d", "--name", name, "--init", "--label", "dev.dockyard.bench=true", "-p", "127.0.0.1::8000",
                    "--entrypoint", "sleep", image, "60");
            floor.add((System.nanoTime() - start) / 1e6);
            docker("rm", "-f", "-v", name);
        }
        row("engine floor: docker run -d of an idle container", floor, "ms");
        for (String server : List.of(EMBEDDED, LIBERTY)) {
            List<Double> boots = new ArrayList<>();
            List<Double> fromStart = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            List<Double> booted = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                try (DirectExecutor executor = DirectExecutor.start(image, null, server)) {
                    boots.add(executor.bootMs);
                    fromStart.add(executor.startedToReadyMs);
                    cpu.add(executor.cpuSeconds() * 1000);
                    booted.add(executor.settledMemoryMib());
                }
            }
            row("executor boot [" + server + "]: docker run → /ready 200", boots, "ms");
            row("executor boot [" + server + "]: container started → /ready 200", fromStart, "ms");
            row("executor boot [" + server + "]: CPU to /ready", cpu, "ms");
            row("executor memory after boot [" + server + "] (container)", booted, "MiB");
        }
        for (String server : List.of(EMBEDDED, LIBERTY)) {
            workingSession(image, n, server);
        }
        if (nmt) {
            try (DirectExecutor executor = DirectExecutor.start(image,
                    "-XX:NativeMemoryTracking=summary -XX:-DisableAttachMechanism", EMBEDDED)) {
                System.out.println("JVM native memory after boot (NMT, committed):");
                System.out.println(executor.nativeMemory());
                try (KeepAlive connection = new KeepAlive(executor.uri)) {
                    workingSession(executor, connection);
                }
                // settled first (the idle collection runs 2 s after the last action), then measured
                String container = fmt(executor.settledMemoryMib());
                System.out.println("JVM native memory after a working session (NMT, committed):");
                System.out.println(executor.nativeMemory());
                System.out.println("container: " + container + " MiB");
            }
        }
    }

    /** echo, the 1 MB write+read pair and a working session on one executor of {@code server}. */
    private void workingSession(String image, int n, String server) throws Exception {
        try (DirectExecutor executor = DirectExecutor.start(image, null, server)) {
            String echo = "{\"action\":{\"action\":\"run\",\"args\":{\"command\":\"echo hello\"}}}";
            String big = ("x".repeat(1023) + "\\n").repeat(1024);
            String write = "{\"action\":{\"action\":\"write\",\"args\":{\"path\":\"/workspace/bench.txt\","
                    + "\"content\":\"" + big + "\"}}}";
            String read = "{\"action\":{\"action\":\"read\",\"args\":{\"path\":\"/workspace/bench.txt\"}}}";
            try (KeepAlive connection = new KeepAlive(executor.uri)) {
                row("echo direct to executor [" + server + "]", time(n, () -> expectText(executor.post(connection, echo), "hello")), "ms");
                // 50 measured pairs after 100 warm-up ones: 20 swung the p50 by ±5 ms between runs. The
                // bodies are encoded once and the answers checked as bytes, so that what is timed is the
                // executor and the socket, not this client turning 2 MB a pair into strings.
                int pairs = Math.max(10, n / 2);
                byte[] writeBody = write.getBytes(StandardCharsets.UTF_8);
                byte[] readBody = read.getBytes(StandardCharsets.UTF_8);
                List<Double> writes = new ArrayList<>();
                List<Double> reads = new ArrayList<>();
                List<Double> both = time(pairs, () -> {
                    long start = System.nanoTime();
                    byte[] written = connection.postBytes(executor.uri.getPath(), "X-Session-API-Key", executor.key, writeBody);
                    long mid = System.nanoTime();
                    byte[] answer = connection.postBytes(executor.uri.getPath(), "X-Session-API-Key", executor.key, readBody);
                    long end = System.nanoTime();
                    if (!foundAtEitherEnd(written, "\"observation\":\"write\"")) {
                        throw new IllegalStateException("unexpected write: " + head(written));
                    }
                    if (answer.length < 1024 * 1024 || !foundAtEitherEnd(answer, "\"observation\":\"read\"")) {
                        throw new IllegalStateException("unexpected read: " + head(answer));
                    }
                    writes.add((mid - start) / 1e6);
                    reads.add((end - mid) / 1e6);
                });
                // time() also runs 2n warm-up steps: keep the measured ones only
                row("1 MB write direct to executor [" + server + "]", writes.subList(writes.size() - pairs, writes.size()), "ms");
                row("1 MB read direct to executor [" + server + "]", reads.subList(reads.size() - pairs, reads.size()), "ms");
                row("1 MB write+read pair direct to executor [" + server + "]", both, "ms");
                workingSession(executor, connection);
            }
            row("executor memory after a working session [" + server + "]", List.of(executor.settledMemoryMib()), "MiB");
        }
    }

    /**
     * The working session the memory figures are taken after: what an agent's step sequence puts
     * through an executor. 50 commands (a 5 MB output and a 1 MB one among them, the rest short),
     * 20 file actions (writes of 1 MB, 256 KB and 4 KB, reads, the editor's view, str_replace and
     * undo on the 1 MB file and a small one) and a download of the workspace as a zip.
     */
    private static void workingSession(DirectExecutor executor, KeepAlive connection) throws Exception {
        String ws = "/workspace/session";
        List<String> commands = new ArrayList<>();
        commands.add("head -c 5242880 /dev/zero | tr '\\0' 'y' | fold -w 100");
        commands.add("seq 1 150000");
        commands.add("mkdir -p " + ws + " && cd " + ws);
        for (int i = 0; commands.size() < 50; i++) {
            commands.add(switch (i % 6) {
                case 0 -> "ls -la " + ws;
                case 1 -> "echo step " + i + " && pwd";
                case 2 -> "export STEP=" + i + " && echo $STEP";
                case 3 -> "git --version";
                case 4 -> "python3 -c 'print(sum(range(1000)))'";
                default -> "wc -c " + ws + "/*.txt 2>/dev/null | tail -n 1";
            });
        }
        for (String command : commands) {
            String body = "{\"action\":{\"action\":\"run\",\"args\":{\"command\":\"" + jsonText(command)
                    + "\",\"blocking\":true},\"timeout\":60}}";
            expectText(executor.post(connection, body), "\"observation\":\"run\"");
        }
        String mb = ("0123456789abcdef".repeat(63) + "0123456789abcd\\n").repeat(1024);
        String quarter = ("q".repeat(255) + "\\n").repeat(1024);
        String small = ("def f():\\n    return 1\\n").repeat(100);
        List<String> files = List.of(
                write(ws + "/one.txt", mb), write(ws + "/quarter.txt", quarter), write(ws + "/small.py", small),
                read(ws + "/one.txt"), read(ws + "/quarter.txt"), read(ws + "/small.py"),
                edit(ws + "/one.txt", "\"command\":\"view\",\"view_range\":[1,40]"),
                edit(ws + "/one.txt", "\"command\":\"str_replace\",\"old_str\":\"0123456789abcd\\n0123\","
                        + "\"new_str\":\"ABCD\\n0123\""),
                edit(ws + "/one.txt", "\"command\":\"undo_edit\""),
                edit(ws + "/small.py", "\"command\":\"view\""),
                edit(ws + "/small.py", "\"command\":\"insert\",\"insert_line\":0,\"new_str\":\"import os\""),
                edit(ws + "/small.py", "\"command\":\"str_replace\",\"old_str\":\"import os\",\"new_str\":\"import sys\""),
                edit(ws + "/new.py", "\"command\":\"create\",\"file_text\":\"print(1)\\n\""),
                write(ws + "/one.txt", mb), read(ws + "/one.txt"), write(ws + "/quarter.txt", quarter),
                read(ws + "/quarter.txt"), edit(ws + "/small.py", "\"command\":\"undo_edit\""),
                read(ws + "/new.py"), edit(ws, "\"command\":\"view\""));
        for (String action : files) {
            String answer = executor.post(connection, action);
            if (answer.contains("\"observation\":\"error\"")) {
                throw new IllegalStateException("working session step failed: " + answer.substring(0,
                        Math.min(300, answer.length())));
            }
        }
        String zip = connection.get("/download_files?path=" + ws, "X-Session-API-Key", executor.key);
        if (zip.length() < 1024) {
            throw new IllegalStateException("download too short: " + zip.length());
        }
    }

    private static String write(String path, String jsonContent) {
        return "{\"action\":{\"action\":\"write\",\"args\":{\"path\":\"" + path + "\",\"content\":\""
                + jsonContent + "\"}}}";
    }

    private static String read(String path) {
        return "{\"action\":{\"action\":\"read\",\"args\":{\"path\":\"" + path + "\"}}}";
    }

    private static String edit(String path, String args) {
        return "{\"action\":{\"action\":\"edit\",\"args\":{\"path\":\"" + path + "\"," + args + "}}}";
    }

    /** Whether {@code text} occurs in the first or last 4 KB of an answer (where an observation's kind is). */
    private static boolean foundAtEitherEnd(byte[] answer, String text) {
        byte[] wanted = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + wanted.length <= answer.length; i++) {
            if (i == 4096 && answer.length > 8192) {
                i = answer.length - 4096;
            }
            if (Arrays.equals(answer, i, i + wanted.length, wanted, 0, wanted.length)) {
                return true;
            }
        }
        return false;
    }

    private static String head(byte[] answer) {
        return new String(answer, 0, Math.min(200, answer.length), StandardCharsets.UTF_8);
    }

    private static String jsonText(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** One executor in a container of its own, removed on close. */
    private static final class DirectExecutor implements AutoCloseable {
        final String name = "dockyard-bench-direct-" + UUID.randomUUID().toString().substring(0, 8);
        final String key = UUID.randomUUID().toString();
        URI uri;
        double bootMs;
        double startedToReadyMs;

        static DirectExecutor start(String image, String jvmOptions, String server) throws Exception {
            DirectExecutor executor = new DirectExecutor();
            List<String> run = new ArrayList<>(List.of("run", "-d", "--name", executor.name, "--init", "--label",
                    "dev.dockyard.bench=true", "-e", "SESSION_API_KEY=" + executor.key, "-p", "127.0.0.1::8000",
                    "-e", "DOCKYARD_EXECUTOR_SERVER=" + server));
            if (jvmOptions != null) {
                run.addAll(List.of("-e", "DOCKYARD_JVM_OPTIONS=" + jvmOptions));
            }
            run.add(image);
            long start = System.nanoTime();
            docker(run.toArray(String[]::new));
            try {
                String port = docker("port", executor.name, "8000/tcp").strip().lines().findFirst().orElseThrow()
                        .replaceAll(".*:", "");
                executor.uri = URI.create("http://127.0.0.1:" + port + "/execute_action");
                executor.awaitReady(start);
                return executor;
            } catch (Exception e) {
                executor.close();
                throw e;
            }
        }

        private void awaitReady(long start) throws Exception {
            URI ready = uri.resolve("/ready");
            long deadline = start + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    if (HTTP.send(HttpRequest.newBuilder(ready).header("X-Session-API-Key", key).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        bootMs = (System.nanoTime() - start) / 1e6;
                        Instant readyAt = Instant.now();
                        // the engine's clock is this host's: from the container's start, the executor's own time
                        Instant started = Instant.parse(docker("inspect", "-f", "{{.State.StartedAt}}", name).strip());
                        startedToReadyMs = Duration.between(started, readyAt).toNanos() / 1e6;
                        return;
                    }
                } catch (IOException notYet) {
                    // still booting
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("direct executor never became ready");
                }
                Thread.sleep(10);
            }
        }

        String post(KeepAlive connection, String body) throws IOException {
            return connection.post(uri.getPath(), "X-Session-API-Key", key, body);
        }

        /** The CPU time the container has used so far (its cgroup's cpuacct, v1 or v2), in seconds. */
        double cpuSeconds() throws Exception {
            String id = docker("inspect", "-f", "{{.Id}}", name).strip();
            for (String file : List.of("/sys/fs/cgroup/cpuacct/docker/" + id + "/cpuacct.usage",
                    "/sys/fs/cgroup/system.slice/docker-" + id + ".scope/cpu.stat", "/sys/fs/cgroup/docker/" + id + "/cpu.stat")) {
                Path path = Path.of(file);
                if (Files.isReadable(path)) {
                    String text = Files.readString(path).strip();
                    if (file.endsWith("cpuacct.usage")) {
                        return Long.parseLong(text) / 1e9;
                    }
                    Matcher usage = Pattern.compile("usage_usec (\\d+)").matcher(text);
                    if (usage.find()) {
                        return Long.parseLong(usage.group(1)) / 1e6;
                    }
                }
            }
            return Double.NaN;
        }

        /** docker stats' figure (usage less inactive page cache), 3 s after the last request. */
        double settledMemoryMib() throws Exception {
            Thread.sleep(3000);
            String used = docker("stats", "--no-stream", "--format", "{{.MemUsage}}", name).split("/")[0].strip();
            double value = Double.parseDouble(used.replaceAll("[^0-9.]", ""));
            return used.endsWith("GiB") ? value * 1024 : used.endsWith("KiB") ? value / 1024 : value;
        }

        /** jcmd VM.native_memory inside the sandbox: the committed figures of the areas that matter. */
        String nativeMemory() throws Exception {
            String pid = docker("exec", name, "sh", "-c", "pidof java || pgrep -x java").strip();
            String summary = docker("exec", name, "/dockyard/jre/bin/jcmd", pid, "VM.native_memory", "summary", "scale=KB");
            StringBuilder out = new StringBuilder();
            Pattern area = Pattern.compile("^(?:Total: |-\\s+([A-Za-z ]+?) \\()reserved=\\d+KB, committed=(\\d+)KB",
                    Pattern.MULTILINE);
            Matcher m = area.matcher(summary);
            while (m.find()) {
                String what = m.group(1) == null ? "Total" : m.group(1).strip();
                if (List.of("Total", "Java Heap", "Class", "Metaspace", "Shared class space", "Code", "Thread", "GC",
                        "Compiler", "Symbol", "Internal", "Other").contains(what)) {
                    out.append(String.format(Locale.ROOT, "  %-20s %8.1f MiB%n", what, Long.parseLong(m.group(2)) / 1024.0));
                }
            }
            Matcher stacks = Pattern.compile("\\(stack: reserved=\\d+KB, committed=(\\d+)KB").matcher(summary);
            if (stacks.find()) {
                out.append(String.format(Locale.ROOT, "  %-20s %8.1f MiB%n", "(thread stacks)",
                        Long.parseLong(stacks.group(1)) / 1024.0));
            }
            return out.toString().stripTrailing();
        }

        @Override
        public void close() throws Exception {
            docker("rm", "-f", "-v", name);
        }
    }

    // ------------------------------------------------------------------ helpers

    private interface Step {
        void run() throws Exception;
    }

    private static List<Double> time(int n, Step step) throws Exception {
        // warm-up: the control plane's JIT and both connection pools settle within a few hundred calls
        for (int i = 0; i < 2 * n; i++) {
            step.run();
        }
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            step.run();
            ms.add((System.nanoTime() - start) / 1e6);
        }
        return ms;
    }

    /**
     * A minimal HTTP/1.1 client on one kept-alive socket: what is timed is the server's round trip,
     * not a client library's thread hand-offs (java.net.http adds about a millisecond here). Nested
     * because the benchmark runs as one source file; the latency ITs use it from here.
     */
    public static final class KeepAlive implements AutoCloseable {
        private final Socket socket;
        private final BufferedInputStream in;
        private final OutputStream out;
        private final String host;

        public KeepAlive(URI uri) throws IOException {
            socket = new Socket(uri.getHost(), uri.getPort());
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = new BufferedOutputStream(socket.getOutputStream(), 65536);
            host = uri.getHost() + ":" + uri.getPort();
        }

        /** POSTs JSON and answers the body of a 200 (anything else throws). */
        public String post(String path, String headerName, String headerValue, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headerName + ": " + headerValue
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n";
            return exchange(head, bytes);
        }

        public String get(String path, String headerName, String headerValue) throws IOException {
            return exchange("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headerName + ": " + headerValue
                    + "\r\n\r\n", new byte[0]);
        }

        /** POSTs JSON and answers the raw body of a 200 (anything else throws). */
        public byte[] postBytes(String path, String headerName, String headerValue, byte[] body) throws IOException {
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headerName + ": " + headerValue
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
            return exchangeBytes(head, body);
        }

        private String exchange(String head, byte[] bytes) throws IOException {
            return new String(exchangeBytes(head, bytes), StandardCharsets.UTF_8);
        }

        private byte[] exchangeBytes(String head, byte[] bytes) throws IOException {
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            String status = line();
            int length = -1;
            boolean chunked = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                String lower = h.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(h.substring(15).strip());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            if (chunked) {
                for (int size = Integer.parseInt(line().strip(), 16); size > 0; size = Integer.parseInt(line().strip(), 16)) {
                    answer.writeBytes(in.readNBytes(size));
                    line();
                }
                line();
            } else {
                answer.writeBytes(in.readNBytes(length));
            }
            if (!status.contains(" 200 ")) {
                throw new IllegalStateException("unexpected answer " + status + ": " + answer.toString(StandardCharsets.UTF_8));
            }
            return answer.toByteArray();
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                if (c != '\r') {
                    sb.append((char) c);
                }
            }
            return sb.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static void expectText(String text, String fragment) {
        if (!text.contains(fragment)) {
            throw new IllegalStateException("unexpected answer: " + text);
        }
    }

    private static void expect(HttpResponse<String> answer, String fragment) {
        if (answer.statusCode() != 200 || !answer.body().contains(fragment)) {
            throw new IllegalStateException("unexpected answer " + answer.statusCode() + ": " + answer.body());
        }
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(api + path)).header("X-API-Key", key).timeout(Duration.ofSeconds(180));
    }

    private HttpRequest.Builder post(String path, String body) {
        return request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpRequest built = request.build();
        try {
            return HTTP.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            // a kept-alive connection the server closed as the request went out (Liberty ends one
            // after 100 requests): a GET or DELETE may simply go again, a POST may not
            if (!built.method().equals("GET") && !built.method().equals("DELETE")) {
                throw e;
            }
            return HTTP.send(built, HttpResponse.BodyHandlers.ofString());
        }
    }

    private static String find(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    private static String docker(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("docker"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("docker " + args[0] + " failed: " + out);
        }
        return out;
    }

    private void row(String what, List<Double> samples, String unit) {
        List<Double> sorted = new ArrayList<>(samples);
        Collections.sort(sorted);
        rows.add(new String[] {what, String.valueOf(sorted.size()), fmt(percentile(sorted, 50)),
                fmt(percentile(sorted, 99)), fmt(sorted.get(0)), fmt(sorted.get(sorted.size() - 1)), unit});
    }

    private static double percentile(List<Double> sorted, int p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private void print() {
        String[] header = {"measure", "n", "p50", "p99", "min", "max", "unit"};
        int[] width = new int[header.length];
        List<String[]> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (String[] r : all) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : all) {
            StringBuilder line = new StringBuilder("| ");
            for (int i = 0; i < r.length; i++) {
                String cell = i == 0 ? String.format("%-" + width[i] + "s", r[i]) : String.format("%" + width[i] + "s", r[i]);
                line.append(cell).append(" | ");
            }
            System.out.println(line.toString().stripTrailing());
            if (r == header) {
                StringBuilder rule = new StringBuilder("|");
                for (int w : width) {
                    rule.append("-".repeat(w + 2)).append("|");
                }
                System.out.println(rule);
            }
        }
    }
}
