package dev.dockyard.runtime.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An action goes to the executor once, even when the connection drops before its answer (the
 * executor killed mid-action): {@code HttpURLConnection} sends a POST again on its own unless
 * {@code sun.net.http.retryPost=false}, which the server's jvm.options sets (and the unit tests'
 * JVM, the same line).
 */
class ExecutorClientOnceTest {

    @Test
    void shouldSendAnActionOnceWhenTheConnectionDropsBeforeTheAnswer() throws Exception {
        AtomicInteger received = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread executor = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket connection = server.accept()) {
                        readRequest(connection.getInputStream());
                        received.incrementAndGet();
                        // dropped without an answer, as by an executor killed while it ran the action
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            executor.setDaemon(true);
            executor.start();
            JsonObject action = Jsonp.createObjectBuilder().add("action", "run")
                    .add("args", Jsonp.createObjectBuilder().add("command", "touch /tmp/once")).build();

            assertThrows(ExecutorClient.ExecutorUnreachableException.class, () -> new ExecutorClient().execute(
                    URI.create("http://127.0.0.1:" + server.getLocalPort()), "key", action, Duration.ofSeconds(5), null));

            Thread.sleep(300);
            assertEquals(1, received.get(), "the action was sent again");
        }
    }

    @Test
    void shouldKeepTheServersJvmFromSendingAPostTwice() throws IOException {
        Path options = Path.of(System.getProperty("user.dir")).resolve("../../liberty/jvm.options").normalize();
        assertTrue(Files.readAllLines(options).contains("-Dsun.net.http.retryPost=false"), options.toString());
    }

    /** Reads one request: its head, then as many bytes as its Content-Length says. */
    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the request ended early");
            }
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).strip());
            }
        }
        byte[] body = in.readNBytes(length);
        assertEquals(length, body.length, new String(body, StandardCharsets.UTF_8));
    }
}
