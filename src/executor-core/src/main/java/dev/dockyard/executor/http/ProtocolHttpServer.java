package dev.dockyard.executor.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dockyard.executor.ExecutorRequests;
import dev.dockyard.executor.Reply;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.protocol.JsonBytes;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * PROTOCOL.md over the JDK's own HTTP server: the executor's light face. It serves the executor
 * WAR run as a program (the sandbox's {@code embedded} mode, {@code EmbeddedExecutor}) and a cli
 * node's in-process executors (on an ephemeral port of 127.0.0.1), answered by the executor core's
 * {@link ExecutorRequests} exactly as the WAR's JAX-RS resources answer them on Liberty: the same
 * protocol suites run against both.
 *
 * <p>This class only routes, and the protocol's routes are all in {@link #route}: method and path
 * to a request, query and body parsed, the {@link Reply} written back; E2B's envd routes, served
 * on the same port, are in {@link EnvdRoutes}. The session key is checked
 * before anything else. A JAX-RS runtime on this server was measured first (Jersey 4.0.2, RESTEasy
 * 7.0.1): ~0.5 s of their own boot on top of the JVM's, where this face costs milliseconds (docs/executor.md,
 * "Executor servers").
 */
public final class ProtocolHttpServer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ProtocolHttpServer.class.getName());
    /**
     * A request body the protocol reads whole (actions, configuration, listings): bounded, at the
     * size the WAR's ActionResource still reads in one allocation. A larger one is a 413.
     */
    static final int MAX_JSON_BYTES = 64 * 1024 * 1024;
    /**
     * The JDK's server writes an answer's head and body apart: without TCP_NODELAY the body waits
     * for the client's delayed ACK of the head (40 ms an action). JVM-wide, read once by the first JDK
     * server made: in the control plane and in the embedded executor, this class's.
     */
    private static final String NO_DELAY = "sun.net.httpserver.nodelay";

    static {
        if (System.getProperty(NO_DELAY) == null) {
            System.setProperty(NO_DELAY, "true");
        }
    }

    private final HttpServer server;
    private final ExecutorRequests requests;
    private final Runnable served;

    private ProtocolHttpServer(HttpServer server, ExecutorRequests requests, Runnable served) {
        this.server = server;
        this.requests = requests;
        this.served = served;
    }

    /** Binds a free port of 127.0.0.1 and serves {@code requests} on {@code threads} (a cli node's executor). */
    public static ProtocolHttpServer open(ExecutorRequests requests, Executor threads) throws IOException {
        return open(requests, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), threads, () -> { });
    }

    /**
     * Binds {@code address} and serves {@code requests} on {@code threads}; {@code served} runs after
     * every action (the executor's idle collector counts from there).
     */
    public static ProtocolHttpServer open(ExecutorRequests requests, InetSocketAddress address, Executor threads,
                                          Runnable served) throws IOException {
        HttpServer server = HttpServer.create(address, 64);
        ProtocolHttpServer face = new ProtocolHttpServer(server, requests, served);
        server.createContext("/", face::handle);
        server.setExecutor(threads);
        server.start();
        return face;
    }

    /** Where a client on this host reaches this executor, as the control plane reaches a sandbox's published port. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The port bound: the one asked for, or the one the system chose for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            path = path.startsWith("/") ? path.substring(1) : path;
            Reply reply;
            if (!requests.authorised(path, exchange.getRequestHeaders().getFirst(ExecutorRequests.SESSION_HEADER))) {
                reply = ExecutorRequests.forbidden();
            } else {
                try {
                    reply = route(exchange, exchange.getRequestMethod(), path);
                } catch (RuntimeException e) {
                    // a defect, not the client's doing: answered as an app server would (500), and logged
                    LOG.log(Level.WARNING, "executor request " + exchange.getRequestMethod() + " /" + path + " failed", e);
                    reply = Reply.detail(500, "Internal Server Error");
                }
            }
            send(exchange, reply);
        } catch (IOException | RuntimeException e) {
            // the client went away mid-answer, or a streamed body failed after its head was sent:
            // nothing more can be answered on this exchange
            LOG.log(Level.FINE, "executor answer not delivered", e);
        }
    }

    private Reply route(HttpExchange exchange, String method, String path) throws IOException {
        Map<String, String> query;
        try {
            query = query(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException e) {
            // the JDK's server parses the request line with java.net.URI, which refuses a bad escape
            // first (its own 400); an answer all the same if a request ever gets here with one
            return Reply.detail(400, "The query string is malformed: a '%' must be followed by two hex digits");
        }
        Reply envd = EnvdRoutes.route(requests.envd(), exchange, method, path, query);
        if (envd != null) {
            return envd;
        }
        String route = method + " " + path;
        return switch (route) {
            case "GET alive" -> requests.alive();
            case "GET ready" -> requests.ready();
            case "GET server_info" -> requests.serverInfo();
            case "GET download_files" -> requests.download(query.get("path"));
            case "POST execute_action" -> {
                byte[] body = exchange.getRequestBody().readNBytes(MAX_JSON_BYTES + 1);
                if (body.length > MAX_JSON_BYTES) {
                    yield tooLarge();
                }
                try {
                    yield requests.execute(body, exchange.getRequestHeaders().getFirst(ExecutorRequests.REQUEST_ID_HEADER));
                } catch (InvalidActionException e) {
                    yield Reply.detail(400, e.getMessage());
                } finally {
                    // idle from the end of an action on, as the WAR's ActionResource counts it
                    served.run();
                }
            }
            case "POST configure", "POST list_files" -> {
                JsonObject body;
                try {
                    body = jsonBody(exchange.getRequestBody());
                } catch (BodyTooLarge e) {
                    yield tooLarge();
                } catch (JsonException | IllegalArgumentException e) {
                    yield Reply.detail(400, "The body must be a JSON object");
                }
                yield path.equals("configure") ? requests.configure(body) : requests.list(body);
            }
            case "POST upload_file" -> requests.upload(exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestBody(), query.get("destination"),
                    Boolean.parseBoolean(query.getOrDefault("recursive", "false")));
            default -> isKnown(path) || EnvdRoutes.isKnown(path) ? Reply.detail(405, "Method Not Allowed") : Reply.detail(404, "Not Found");
        };
    }

    private static Reply tooLarge() {
        return Reply.detail(413, "The body is larger than " + (MAX_JSON_BYTES >> 20) + " MiB");
    }

    /** A body past {@link #MAX_JSON_BYTES}. */
    private static final class BodyTooLarge extends IllegalArgumentException {
        BodyTooLarge() {
            super("body too large");
        }
    }

    private static boolean isKnown(String path) {
        return switch (path) {
            case "alive", "ready", "server_info", "download_files", "execute_action", "configure", "list_files",
                 "upload_file" -> true;
            default -> false;
        };
    }

    /** The body as a JSON object; an empty body is none (null), as JAX-RS hands it to the WAR's resources. */
    private static JsonObject jsonBody(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(MAX_JSON_BYTES + 1);
        if (bytes.length > MAX_JSON_BYTES) {
            throw new BodyTooLarge();
        }
        if (bytes.length == 0) {
            return null;
        }
        try (JsonReader reader = Jsonp.createReader(new ByteArrayInputStream(bytes))) {
            return reader.readObject();
        }
    }

    /** The query's parameters, the first of each name; IllegalArgumentException for a bad percent-escape. */
    private static Map<String, String> query(String raw) {
        Map<String, String> values = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return values;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            values.putIfAbsent(name, value);
        }
        return values;
    }

    private static void send(HttpExchange exchange, Reply reply) throws IOException {
        reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        if (reply.contentType() != null) {
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
        }
        Object body = reply.body();
        if (body == null) {
            exchange.sendResponseHeaders(reply.status(), -1);
            return;
        }
        if (body instanceof Reply.Streamed streamed) {
            // chunked (0), each flush a chunk on the wire; or a length the reply knows (a file's), -1 for none
            String length = reply.headers().get("Content-Length");
            exchange.sendResponseHeaders(reply.status(), length == null ? 0
                    : Long.parseLong(length) == 0 ? -1 : Long.parseLong(length));
            try (OutputStream out = exchange.getResponseBody()) {
                streamed.writeTo(out);
            }
            return;
        }
        // JsonBytes, not JSON-P's toString(): the same bytes, and a file's text written from its own
        byte[] bytes = body instanceof byte[] raw ? raw : body instanceof JsonValue json ? JsonBytes.write(json)
                : body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(reply.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
