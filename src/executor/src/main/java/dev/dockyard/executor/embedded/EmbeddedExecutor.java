package dev.dockyard.executor.embedded;

import dev.dockyard.executor.api.ExecutorLifecycle;
import dev.dockyard.executor.http.ProtocolHttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The executor WAR run as a program: the sandbox's {@code embedded} executor server (the default;
 * {@code liberty} deploys the same WAR on Open Liberty instead). The same executor
 * ({@link ExecutorLifecycle}: settings, session key, shell, idle collector) answers PROTOCOL.md
 * through {@link ProtocolHttpServer} on the JDK's own HTTP server: no servlet container and no
 * OSGi, so the boot is the JVM's and the shell's, and an idle sandbox holds a few MiB of heap.
 *
 * <p>Listens where Liberty's {@code server.xml} does: {@code EXECUTOR_HOST} (every interface by
 * default; a local node's host process sets 127.0.0.1) and {@code EXECUTOR_PORT} (8000).
 */
public final class EmbeddedExecutor {

    private static final Logger LOG = Logger.getLogger(EmbeddedExecutor.class.getName());
    static final int DEFAULT_PORT = 8000;
    /** Exit code when the port cannot be bound: the container ends and says why, as when the executor cannot start. */
    static final int CANNOT_LISTEN = 65;
    /**
     * Requests served at once. Each action holds its thread until it ends (a command may run for
     * minutes) while {@code /alive} and uploads must still be answered; past this many a connection
     * is refused rather than a thread made.
     */
    static final int MAX_THREADS = 200;

    private EmbeddedExecutor() {
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> env = System.getenv();
        String host = listenHost(env.get("EXECUTOR_HOST"));
        int port;
        try {
            port = listenPort(env.get("EXECUTOR_PORT"));
        } catch (IllegalArgumentException e) {
            LOG.severe(e.getMessage());
            System.exit(CANNOT_LISTEN);
            return;
        }
        // first: the settings and the session key are read and the shell starts on its own thread
        // while the server binds
        ExecutorLifecycle lifecycle = ExecutorLifecycle.instance();
        ProtocolHttpServer server;
        try {
            server = ProtocolHttpServer.open(lifecycle.requests(), new InetSocketAddress(host, port), threads(),
                    lifecycle::served);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.SEVERE, "Executor could not listen on " + host + ":" + port + ": " + e.getMessage());
            System.exit(CANNOT_LISTEN);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "executor-server-stop"));
        LOG.info("Executor listening on " + host + ":" + server.port());
        // the server's threads are daemons: this thread holds the JVM up until it is signalled
        stopped.await();
    }

    private static ThreadPoolExecutor threads() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(0, MAX_THREADS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
            Thread thread = new Thread(task, "executor-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Liberty's {@code *} (every interface) as the JDK server's wildcard address. */
    static String listenHost(String configured) {
        if (configured == null || configured.isBlank() || configured.equals("*")) {
            return "0.0.0.0";
        }
        return configured.trim();
    }

    static int listenPort(String configured) {
        if (configured == null || configured.isBlank()) {
            return DEFAULT_PORT;
        }
        int port;
        try {
            port = Integer.parseInt(configured.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("EXECUTOR_PORT '" + configured + "' is not a port number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("EXECUTOR_PORT " + port + " is not a port number (1-65535)");
        }
        return port;
    }
}
