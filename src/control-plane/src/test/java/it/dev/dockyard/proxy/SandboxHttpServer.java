package it.dev.dockyard.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A sandbox's HTTP service, on 127.0.0.1: a page, a 10 MB body streamed in pieces, an echo of what
 * the sandbox received (key header, query, cookies, path, prefix), a redirect to its own address,
 * an upload checksum, an answer that comes too late, the legacy
 * action server's VS Code token (its own key), and an event stream whose second event waits for the test to have seen the
 * first (so a proxy that buffered would never deliver it).
 */
final class SandboxHttpServer implements AutoCloseable {

    static final int BIG = 10 * 1024 * 1024;

    private final HttpServer server;
    /** Released by the test once the first event arrived. */
    volatile CountDownLatch firstEventSeen = new CountDownLatch(1);

    SandboxHttpServer() throws IOException {
        // the JDK server holds small writes back (Nagle) unless told not to: 40 ms a request
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The 10 MB body the server sends: the same bytes every time. */
    static byte[] bigBody() {
        byte[] body = new byte[BIG];
        new Random(42).nextBytes(body);
        return body;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            if (path.endsWith("/big")) {
                big(exchange);
            } else if (path.endsWith("/events")) {
                events(exchange);
            } else if (path.endsWith("/vscode/connection_token")) {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                text(exchange, 200, "{\"token\": \"" + header(exchange, "X-Session-API-Key") + "\"}");
            } else if (path.endsWith("/slow")) {
                sleep(6_000); // longer than the test server's dockyard.proxy.response-timeout
                text(exchange, 200, "late");
            } else if (path.endsWith("/redirect")) {
                exchange.getResponseHeaders().add("Location", uri() + "/page?from=redirect");
                exchange.sendResponseHeaders(302, -1);
            } else if (path.endsWith("/upload")) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                text(exchange, 200, body.length + " " + sha256(body));
            } else if (path.endsWith("/alive")) {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                text(exchange, 200, "{\"status\":\"ok\",\"key\":\"" + header(exchange, "X-Session-API-Key") + "\"}");
            } else if (path.endsWith("/page")) {
                exchange.getResponseHeaders().add("Content-Type", "text/html");
                text(exchange, 200, "<html><body>sandbox page</body></html>");
            } else {
                echo(exchange);
            }
        }
    }

    /** What the sandbox received, one {@code name=value} a line; sets a cookie holding the key it got. */
    private void echo(HttpExchange exchange) throws IOException {
        String key = header(exchange, "X-Session-API-Key");
        StringBuilder out = new StringBuilder();
        out.append("method=").append(exchange.getRequestMethod()).append('\n');
        out.append("path=").append(exchange.getRequestURI().getRawPath()).append('\n');
        out.append("query=").append(exchange.getRequestURI().getRawQuery()).append('\n');
        out.append("key=").append(key).append('\n');
        out.append("cookie=").append(header(exchange, "Cookie")).append('\n');
        out.append("api-key=").append(header(exchange, "X-API-Key")).append('\n');
        out.append("prefix=").append(header(exchange, "X-Forwarded-Prefix")).append('\n');
        out.append("forwarded-for=").append(header(exchange, "X-Forwarded-For")).append('\n');
        out.append("forwarded-host=").append(header(exchange, "X-Forwarded-Host")).append('\n');
        out.append("forwarded-proto=").append(header(exchange, "X-Forwarded-Proto")).append('\n');
        out.append("forwarded=").append(header(exchange, "Forwarded")).append('\n');
        out.append("real-ip=").append(header(exchange, "X-Real-IP")).append('\n');
        out.append("host=").append(header(exchange, "Host")).append('\n');
        out.append("custom=").append(header(exchange, "X-Custom")).append('\n');
        out.append("body=").append(exchange.getRequestBody().readAllBytes().length).append('\n');
        exchange.getResponseHeaders().add("Set-Cookie", "vscode-tkn=" + key + "; Path=/; HttpOnly");
        exchange.getResponseHeaders().add("X-Seen-Key", String.valueOf(key));
        text(exchange, 200, out.toString());
    }

    private static void big(HttpExchange exchange) throws IOException {
        byte[] body = bigBody();
        exchange.getResponseHeaders().add("Content-Type", "application/octet-stream");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            for (int offset = 0; offset < body.length; offset += 100_000) {
                out.write(body, offset, Math.min(100_000, body.length - offset));
            }
        }
    }

    private void events(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0); // chunked: the length is not known
        try (OutputStream out = exchange.getResponseBody()) {
            out.write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            boolean seen;
            try {
                seen = firstEventSeen.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                seen = false;
            }
            out.write(("data: " + (seen ? "second" : "timeout") + "\n\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String header(HttpExchange exchange, String name) {
        return exchange.getRequestHeaders().getFirst(name);
    }

    private static void text(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (InputStream ignored = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
