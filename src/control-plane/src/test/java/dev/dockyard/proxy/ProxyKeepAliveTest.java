package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The proxy lets an idle connection to a sandbox go before the sandbox's executor does. Were both
 * to close it at the same moment, a request sent on it as the executor closed it would be dropped
 * unanswered: a 502 (once in the soak of 2026-12-02 08:27, as traffic came back after 30 s of
 * database outage), since a POST is never sent twice. The keep-alive is a JVM setting of the
 * server's jvm.options, which the unit tests' JVM takes too.
 */
class ProxyKeepAliveTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();

    @Test
    void shouldSendARequestAfterAnIdleStretchOnANewConnectionRatherThanOneTheExecutorIsClosing() throws Exception {
        long keepAlive = Long.getLong("jdk.httpclient.keepalive.timeout", 1200);
        assertTrue(keepAlive <= 10, "the proxy keeps idle connections " + keepAlive + " s");
        // an executor whose idle limit is a second past the proxy's: a request that arrives on a
        // connection idle that long meets the executor closing it, and is dropped unanswered
        long idleLimitMillis = (keepAlive + 1) * 1000;
        AtomicInteger connections = new AtomicInteger();
        AtomicInteger dropped = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread executor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket connection = server.accept();
                        connections.incrementAndGet();
                        Thread serving = new Thread(() -> serve(connection, idleLimitMillis, dropped));
                        serving.setDaemon(true);
                        serving.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            executor.setDaemon(true);
            executor.start();
            HttpClient client = HttpForwarding.newClient(Duration.ofSeconds(5));
            HttpRequest action = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/execute_action"))
                    .timeout(Duration.ofSeconds(10)).POST(BodyPublishers.ofString("{\"action\":\"run\"}")).build();

            assertEquals(200, client.send(action, BodyHandlers.ofString()).statusCode());
            Thread.sleep(idleLimitMillis + 500);
            assertEquals(200, client.send(action, BodyHandlers.ofString()).statusCode());

            assertEquals(0, dropped.get(), "requests sent on a connection the executor was closing");
            assertEquals(2, connections.get(), "connections opened");
        }
    }

    @Test
    void shouldKeepTheServersIdleConnectionsShorterThanEitherExecutorsIdleLimit() throws IOException {
        long keepAlive = seconds(ROOT.resolve("liberty/jvm.options"), "^-Djdk\\.httpclient\\.keepalive\\.timeout=(\\d+)$");
        long embedded = seconds(ROOT.resolve("docker/sandbox/bin/jvm.options"), "^-Dsun\\.net\\.httpserver\\.idleInterval=(\\d+)$");
        long liberty = seconds(ROOT.resolve("src/executor/src/main/liberty/config/server.xml"), "persistTimeout=\"(\\d+)s\"");

        assertEquals(keepAlive, Long.getLong("jdk.httpclient.keepalive.timeout", -1), "the unit tests' JVM takes the server's line");
        assertTrue(keepAlive * 2 <= Math.min(embedded, liberty),
                "the proxy keeps idle connections " + keepAlive + " s; executors " + embedded + " s (embedded) and "
                        + liberty + " s (Liberty)");
    }

    /** Answers requests on one connection until it has been idle past the limit when the next comes. */
    private static void serve(Socket connection, long idleLimitMillis, AtomicInteger dropped) {
        try (connection) {
            InputStream in = connection.getInputStream();
            OutputStream out = connection.getOutputStream();
            long answered = 0;
            while (readRequest(in)) {
                if (answered != 0 && System.currentTimeMillis() - answered >= idleLimitMillis) {
                    dropped.incrementAndGet();
                    return; // closed as the request came in: the client gets no answer
                }
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                answered = System.currentTimeMillis();
            }
        } catch (IOException e) {
            // the client closed the connection: nothing more to serve on it
        }
    }

    /** Reads one request (head and Content-Length body); false when the connection ended first. */
    private static boolean readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return false;
            }
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).strip());
            }
        }
        in.readNBytes(length);
        return true;
    }

    private static long seconds(Path file, String regex) throws IOException {
        Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(Files.readString(file));
        assertTrue(m.find(), file + " sets no " + regex);
        return Long.parseLong(m.group(1));
    }
}
