package dev.dockyard.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StartupWarmUpTest {

    /** What the fake API saw: method, path, key, body. */
    private record Seen(String method, String path, String key, String body) {
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private HttpServer api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.stop(0);
        }
    }

    /** A loopback API that answers 404 to its first {@code notStarted} requests (the application not started yet), then {@code status}. */
    private URI api(int notStarted, int status) throws IOException {
        AtomicInteger requests = new AtomicInteger();
        api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        api.createContext("/", exchange -> answer(exchange, requests.incrementAndGet() <= notStarted ? 404 : status));
        api.start();
        return StartupWarmUp.apiBase("127.0.0.1", api.getAddress().getPort());
    }

    private void answer(HttpExchange exchange, int status) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (status != 404) {
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst(StartupWarmUp.KEY_HEADER), body));
        }
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    @Test
    void shouldSendAProvisionsRequestsWithAKeyNobodyHasOnceTheApiServes() throws Exception {
        URI base = api(2, 401);

        int answered = new StartupWarmUp.ApiRequests(base).send();

        assertEquals(StartupWarmUp.ApiRequests.CALLS.size(), answered);
        assertEquals(List.of("GET /api/v1/runtimes", "POST /api/v1/runtimes", "GET /api/v1/runtimes/warm-up"),
                seen.stream().map(s -> s.method() + " " + s.path()).toList());
        assertEquals("{\"conversationId\":\"warm-up\"}", seen.get(1).body());
        String key = seen.get(0).key();
        assertNotNull(key);
        assertTrue(key.matches("[0-9a-f]{32}"), key);
        assertTrue(seen.stream().allMatch(s -> key.equals(s.key())), "one key for the three");
        seen.clear();
        new StartupWarmUp.ApiRequests(base).send();
        assertNotEquals(key, seen.get(0).key(), "a fresh key at each start");
    }

    @Test
    void shouldSendNoMoreOnceSomethingElseAnswersThere() throws Exception {
        URI base = api(0, 200);

        assertEquals(0, new StartupWarmUp.ApiRequests(base).send());
        assertEquals(1, seen.size(), seen.toString());
    }

    @Test
    void shouldReadyEveryNodeThoughOneFailsThenWarmTheApi() throws Exception {
        URI base = api(0, 401);
        FakeNodes nodes = new FakeNodes("node1", "node2", "node3");
        nodes.backend("node2").prepareFailure = new IllegalStateException("engine away");
        StartupWarmUp warmUp = warmUp(nodes, "*", base);

        warmUpOnThreads(warmUp, () -> { });

        assertEquals(List.of(1, 1, 1), List.of(nodes.backend("node1").prepared, nodes.backend("node2").prepared,
                nodes.backend("node3").prepared));
        assertEquals(3, seen.size(), seen.toString());
        assertNotNull(warmUp.tookMillis(), "done: /health/ready's warm-up check is UP");
        assertEquals(StartupWarmUp.ApiRequests.CALLS.size(), warmUp.apiAnswered());
        assertEquals("rehearsed", warmUp.rehearsed(), "once the nodes were readied and the API answered");
    }

    @Test
    void shouldNotRehearseOnAnApiThatDidNotAnswerAsOurs() throws Exception {
        StartupWarmUp warmUp = warmUp(new FakeNodes("node1"), "127.0.0.1", api(0, 200));

        warmUpOnThreads(warmUp, () -> { });

        assertEquals("not run: the API did not answer the warm-up's requests", warmUp.rehearsed());
    }

    @Test
    void shouldReadyTheNodesWhileItSendsTheApiItsRequests() throws Exception {
        URI base = api(0, 401);
        // a node whose readying ends only once the API has had its three requests: one after the
        // other, the warm-up would wait for it first and never send them
        CountDownLatch apiWarmed = new CountDownLatch(1);
        FakeNodes nodes = new FakeNodes("node1") {
            @Override
            public RuntimeBackend on(String node) {
                FakeBackend backend = backend("node1");
                return new FakeBackend() {
                    @Override
                    public void prepare() {
                        try {
                            backend.prepared += apiWarmed.await(10, TimeUnit.SECONDS) ? 1 : 0;
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                };
            }
        };
        StartupWarmUp warmUp = warmUp(nodes, "127.0.0.1", base);
        Thread release = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (seen.size() < StartupWarmUp.ApiRequests.CALLS.size() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            if (seen.size() >= StartupWarmUp.ApiRequests.CALLS.size()) {
                apiWarmed.countDown();
            }
        });
        release.start();

        warmUpOnThreads(warmUp, release::join);

        assertEquals(1, nodes.backend("node1").prepared, "readied once the API had its requests");
        assertEquals(StartupWarmUp.ApiRequests.CALLS.size(), warmUp.apiAnswered());
    }

    private static StartupWarmUp warmUp(FakeNodes nodes, String host, URI api) {
        StartupWarmUp warmUp = new StartupWarmUp();
        warmUp.nodes = nodes;
        // its own rules are StartupRehearsalTest's, a real one StartupRehearsalIT's: here, that it is asked last
        warmUp.rehearsal = new StartupRehearsal() {
            @Override
            public String rehearse(URI asked) {
                assertEquals(StartupWarmUp.apiBase(host, api.getPort()), asked);
                return "rehearsed";
            }
        };
        warmUp.httpHost = host;
        warmUp.httpPort = api.getPort();
        return warmUp;
    }

    /** Something to do once the warm-up is done, before its threads go. */
    private interface After {
        void run() throws InterruptedException;
    }

    /** Runs the warm-up with its nodes readied on threads of a pool, as the server's managed executor does. */
    private static void warmUpOnThreads(StartupWarmUp warmUp, After after) throws InterruptedException {
        ExecutorService nodesOn = Executors.newCachedThreadPool();
        try {
            warmUp.warmUp(nodesOn);
            after.run();
        } finally {
            nodesOn.shutdownNow();
        }
    }

    @Test
    void shouldSendToItsOwnListener() {
        assertEquals(URI.create("http://127.0.0.1:9080/api/v1/"), StartupWarmUp.apiBase("*", 9080));
        assertEquals(URI.create("http://127.0.0.1:9080/api/v1/"), StartupWarmUp.apiBase("0.0.0.0", 9080));
        assertEquals(URI.create("http://127.0.0.1:9080/api/v1/"), StartupWarmUp.apiBase("localhost", 9080));
        assertEquals(URI.create("http://10.1.2.3:19280/api/v1/"), StartupWarmUp.apiBase("10.1.2.3", 19280));
        assertEquals(URI.create("http://[::1]:9080/api/v1/"), StartupWarmUp.apiBase("::1", 9080));
    }
}
