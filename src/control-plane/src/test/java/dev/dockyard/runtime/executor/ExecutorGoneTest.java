package dev.dockyard.runtime.executor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** An executor gone is one nothing answers for at its address; a slow one is not gone. */
class ExecutorGoneTest {

    private final ExecutorClient client = new ExecutorClient();

    @Test
    void aConnectionClosedUnansweredIsAnExecutorGone() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // each connection taken, then closed unanswered, as a stopping executor does (the client
            // sends a GET twice on a connection closed before any answer)
            Thread closing = new Thread(() -> {
                for (int i = 0; i < 5; i++) {
                    try (Socket taken = server.accept()) {
                        taken.getInputStream().read();
                    } catch (IOException e) {
                        return; // the test's end
                    }
                }
            });
            closing.start();
            assertTrue(client.isGone(URI.create("http://127.0.0.1:" + server.getLocalPort())));
        } // closing the server ends the thread's accept
    }

    @Test
    void aRefusedConnectionIsAnExecutorGone() throws Exception {
        int port;
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = server.getLocalPort();
        }
        assertTrue(client.isGone(URI.create("http://127.0.0.1:" + port)));
    }

    @Test
    void anExecutorThatDoesNotAnswerInTimeIsNotGone() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread holding = new Thread(() -> {
                try (Socket taken = server.accept()) {
                    Thread.sleep(3000); // answers nothing for longer than the probe waits
                } catch (IOException | InterruptedException e) {
                    // the test's end
                }
            });
            holding.start();
            assertFalse(client.isGone(URI.create("http://127.0.0.1:" + server.getLocalPort())),
                    "a slow executor, on a loaded node, is not a stopping one");
            holding.interrupt();
            holding.join(5000);
        }
    }
}
