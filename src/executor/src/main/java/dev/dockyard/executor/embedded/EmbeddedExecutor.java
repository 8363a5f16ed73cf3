package dev.dockyard.executor.embedded;

import dev.dockyard.executor.api.ExecutorLifecycle;
import dev.dockyard.executor.http.ProtocolHttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The executor WAR run as a program: the sandbox's {@code embedded} executor server (the default;
 * {@code liberty} deploys the same WAR on Open Liberty instead). The same executor
 * ({@link ExecutorLifecycle}: settings, session key, shell, idle collector) answers PROTOCOL.md
 * through {@link ProtocolHttpServer} on the JDK's own HTTP server: no servlet container and no
 * OSGi, so the boot is the JVM's and the shell's (~0.3 s), and an idle sandbox ~20 MiB.
 *
 * <p>Listens where Liberty's {@code server.xml} does: {@code EXECUTOR_HOST} (every interface by
 * default; a local node's host process sets 127.0.0.1) and {@code EXECUTOR_PORT} (8000).
 */
public final class EmbeddedExecutor {

    private static final Logger LOG = Logger.getLogger(EmbeddedExecutor.class.getName());
    static final int DEFAULT_PORT = 8000;
    /** Exit code when the port cannot be bound: the container ends and says why, as when the executor cannot start. */
    static final int CANNOT_LISTEN = 65;

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
        // every interface, IPv6 as well as IPv4 (Liberty's "*"), unless an address is named
        InetSocketAddress address = host == null ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        // first: the settings and the session key are read and the shell starts on its own thread
        // while the server binds
        ExecutorLifecycle lifecycle = ExecutorLifecycle.instance();
        ProtocolHttpServer server;
        try {
            server = ProtocolHttpServer.open(lifecycle.requests(), address, threads(), lifecycle::served);
        } catch (IOException | RuntimeException e) {
            LOG.severe("Executor could not listen on " + address + ": " + e.getMessage());
            System.exit(CANNOT_LISTEN);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "executor-server-stop"));
        LOG.info("Executor listening on " + (host == null ? "*" : host) + ":" + server.port());
        // the server's threads are daemons: this thread holds the JVM up until it is signalled
        stopped.await();
    }

    /**
     * A thread per request in flight, made when needed and ended after a minute idle. Unbounded on
     * purpose: an action holds its thread until it ends (a command may run for minutes) while
     * {@code /alive}, {@code /ready} and uploads must still be answered; the JDK's server would
     * close a connection a bounded pool refused without any answer. The control plane bounds what
     * it sends one sandbox, and the sandbox's pids limit bounds the rest.
     */
    private static ExecutorService threads() {
        AtomicInteger count = new AtomicInteger();
        return Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "executor-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The address named in {@code EXECUTOR_HOST}; null for Liberty's {@code *} or none: every interface. */
    static String listenHost(String configured) {
        if (configured == null || configured.isBlank() || configured.strip().equals("*")) {
            return null;
        }
        return configured.strip();
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
