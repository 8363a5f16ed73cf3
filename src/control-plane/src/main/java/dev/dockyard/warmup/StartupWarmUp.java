package dev.dockyard.warmup;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.StartupOrder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Once at the control plane's start, on a managed thread: readies every node for its first sandbox
 * ({@code RuntimeBackend#prepare}: on Docker the default bridge's link-local refusal, which the first
 * open sandbox used to wait for) and, meanwhile, sends the API a few requests over loopback with a
 * key nobody has, each answered 401 after the key's look-up in the database. The first provision after a
 * start used to pay for what the server loads and compiles on first use: its first request of any
 * kind took 0.6 s against 20 ms for the next (measured 2026-12-02 on this machine), and the first
 * provision 1 s more than the next at the client. Once the nodes are ready it rehearses a provision
 * ({@link StartupRehearsal}), which the 401s alone left 0.5–1.2 s slower than the next (2026-12-03).
 *
 * <p>Nothing here fails the start: a node that cannot be readied is readied by its first
 * provision, a request that finds no server is given up after a few seconds. Off with
 * {@code dockyard.warm-up.enabled=false}.
 */
@Singleton
@Startup
@DependsOn(StartupOrder.SCHEMA_MIGRATIONS)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StartupWarmUp {

    private static final Logger LOG = Logger.getLogger(StartupWarmUp.class.getName());

    /** The API key header ({@code api.ApiKeyFilter}'s, named here: this ring does not see the API's). */
    static final String KEY_HEADER = "X-API-Key";
    /** How long the requests wait, each, for the API to serve: it opens once the application has started. */
    static final Duration SERVER_WAIT = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(250);
    /** How long the warm-up waits for the nodes: a node's egress helper may run 30 s before it gives up. */
    static final Duration NODES_WAIT = Duration.ofSeconds(40);

    @Inject
    BackendNodes nodes;

    @Inject
    StartupRehearsal rehearsal;

    @Resource
    ManagedExecutorService threads;

    @Inject
    @ConfigProperty(name = "dockyard.warm-up.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "http.host", defaultValue = "127.0.0.1")
    String httpHost;

    @Inject
    @ConfigProperty(name = "http.port", defaultValue = "9080")
    int httpPort;

    private final long startedNanos = System.nanoTime();
    private volatile Long tookMillis;
    private volatile int apiAnswered;
    private volatile String rehearsed = "not yet";

    @PostConstruct
    void atStartup() {
        if (!enabled) {
            rehearsed = "off";
            tookMillis = 0L;
            return;
        }
        threads.execute(() -> warmUp(threads));
    }

    /** How long the warm-up took, once it is done. */
    public Long tookMillis() {
        return tookMillis;
    }

    /** How many of the API's warm-up requests were answered as they should be (401), of {@link ApiRequests#CALLS}. */
    public int apiAnswered() {
        return apiAnswered;
    }

    /** What the start's rehearsal ({@link StartupRehearsal}) did, in a line. */
    public String rehearsed() {
        return rehearsed;
    }

    /** Time since the control plane's start reached this bean. */
    public Duration sinceStart() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /**
     * Readies the nodes, each on a thread of {@code nodesOn}, while this thread sends the API's
     * requests: the warm-up takes the longest of them, not their sum (in the CI run of 2026-12-02
     * 12:27, done one after another, they took 2–48 s beside the suites' load).
     */
    void warmUp(Executor nodesOn) {
        long start = System.nanoTime();
        try {
            List<CompletableFuture<Void>> readying = nodes.names().stream()
                    .map(node -> CompletableFuture.runAsync(() -> prepare(node), nodesOn)).toList();
            URI api = apiBase(httpHost, httpPort);
            int answered = new ApiRequests(api).send();
            apiAnswered = answered;
            long apiDone = System.nanoTime();
            CompletableFuture.allOf(readying.toArray(CompletableFuture[]::new)).get(NODES_WAIT.toSeconds(), TimeUnit.SECONDS);
            long nodesDone = System.nanoTime();
            // once the nodes are ready, as a first provision would find them; only on an API that answers as ours
            rehearsed = answered == ApiRequests.CALLS.size()
                    ? rehearsal.rehearse(api)
                    : "not run: the API did not answer the warm-up's requests";
            long end = System.nanoTime();
            LOG.info("Warmed up in " + (end - start) / 1_000_000 + " ms (" + answered + " API requests "
                    + (apiDone - start) / 1_000_000 + " ms; " + readying.size() + " nodes readied beside them; "
                    + "the rehearsal " + (end - nodesDone) / 1_000_000 + " ms: " + rehearsed + ")");
        } catch (TimeoutException e) {
            rehearsed = "not run: a node was not readied in " + NODES_WAIT.toSeconds() + " s";
            LOG.info("Warm-up: a node was not readied within " + NODES_WAIT.toSeconds() + " s: not waited for longer");
        } catch (ExecutionException | RuntimeException e) {
            rehearsed = "not run: the warm-up failed";
            LOG.log(Level.WARNING, "The warm-up failed: the first provision pays for what it would have loaded", e);
        } catch (InterruptedException e) {
            rehearsed = "not run: interrupted";
            Thread.currentThread().interrupt();
        } finally {
            tookMillis = (System.nanoTime() - start) / 1_000_000;
        }
    }

    private void prepare(String node) {
        try {
            nodes.on(node).prepare();
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "Node ''{0}'' could not be readied at start ({1}): its first provision does it",
                    new Object[] {node, e.getMessage()});
        }
    }

    /** The API's own address: loopback when the server listens on every interface or on loopback. */
    static URI apiBase(String host, int port) {
        String h = host == null ? "" : host.strip();
        boolean everywhere = h.isEmpty() || h.equals("*") || h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]");
        String target = everywhere || h.equals("localhost") ? "127.0.0.1" : h.contains(":") && !h.startsWith("[")
                ? "[" + h + "]" : h;
        return URI.create("http://" + target + ":" + port + "/api/v1/");
    }

    /**
     * The requests of a provision's path that need no account: a listing, a provision with a body
     * and a look-up, each with a key nobody has (a fresh random one), so each is answered 401 after
     * the filters, the key's database look-up and the problem+json writer ran.
     */
    static final class ApiRequests {

        /** A request of the warm-up: its method, its path under the API and its JSON body, if any. */
        record Call(String method, String path, String body) {
        }

        /** The warm-up's requests, in the order a client's first provision sends them. */
        static final List<Call> CALLS = List.of(
                new Call("GET", "runtimes", null),
                new Call("POST", "runtimes", "{\"conversationId\":\"warm-up\"}"),
                new Call("GET", "runtimes/warm-up", null));

        private final URI base;
        private final String key = HexFormat.of().formatHex(randomKey());
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

        ApiRequests(URI base) {
            this.base = base;
        }

        private static byte[] randomKey() {
            byte[] bytes = new byte[16];
            new SecureRandom().nextBytes(bytes);
            return bytes;
        }

        /** Sends them; how many the API answered 401, as it should. */
        int send() {
            int answered = 0;
            for (Call call : CALLS) {
                HttpRequest r = request(call);
                Integer status = untilServed(r);
                if (status == null) {
                    return answered;
                }
                if (status != 401) {
                    // not the answer this server gives a key nobody has: whatever listens there, no more to it
                    LOG.info("Warm-up request " + r.method() + " " + r.uri().getPath() + " answered " + status
                            + ": the warm-up sends no more");
                    return answered;
                }
                answered++;
            }
            return answered;
        }

        private HttpRequest request(Call call) {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(call.path())).timeout(Duration.ofSeconds(10))
                    .header(KEY_HEADER, key);
            if (call.body() == null) {
                return b.method(call.method(), HttpRequest.BodyPublishers.noBody()).build();
            }
            return b.header("Content-Type", "application/json")
                    .method(call.method(), HttpRequest.BodyPublishers.ofString(call.body())).build();
        }

        /** The status, once the API serves (not before the application has started: 404, or no listener); null if it never did. */
        private Integer untilServed(HttpRequest request) {
            long deadline = System.nanoTime() + SERVER_WAIT.toNanos();
            while (true) {
                try {
                    int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status != 404 && status != 503) {
                        return status;
                    }
                } catch (IOException e) {
                    // not listening yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                if (System.nanoTime() > deadline) {
                    LOG.info("Warm-up: the API did not serve " + request.uri().getPath() + " within " + SERVER_WAIT.toSeconds() + " s");
                    return null;
                }
                try {
                    Thread.sleep(POLL.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
    }
}
