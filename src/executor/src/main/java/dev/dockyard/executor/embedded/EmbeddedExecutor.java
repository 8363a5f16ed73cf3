package dev.dockyard.executor.embedded;

import dev.dockyard.executor.api.ExecutorApplication;
import jakarta.ws.rs.SeBootstrap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The executor WAR run as a program ({@code embedded} mode): the same {@link ExecutorApplication}
 * that Liberty deploys, served by the JAX-RS runtime on the class path through the standard
 * {@link SeBootstrap} API, on the JDK's own HTTP server. No servlet container, no OSGi: the boot
 * is the application's, a few hundred milliseconds, and the idle server a few MiB.
 *
 * <p>Listens where Liberty's {@code server.xml} does: {@code EXECUTOR_HOST} (all interfaces by
 * default; a local node's host process sets 127.0.0.1) and {@code EXECUTOR_PORT} (8000).
 */
public final class EmbeddedExecutor {

    private static final Logger LOG = Logger.getLogger(EmbeddedExecutor.class.getName());
    static final int DEFAULT_PORT = 8000;
    /** The exit code of a server that could not listen, as the executor's own refusal to start. */
    static final int CANNOT_LISTEN = 65;

    private EmbeddedExecutor() {
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> env = System.getenv();
        String host = listenHost(env.get("EXECUTOR_HOST"));
        int port = listenPort(env.get("EXECUTOR_PORT"));
        SeBootstrap.Configuration configuration = SeBootstrap.Configuration.builder()
                .protocol("HTTP").host(host).port(port).rootPath("/").build();
        try {
            SeBootstrap.Instance server = SeBootstrap.start(new ExecutorApplication(), configuration)
                    .toCompletableFuture().get(60, TimeUnit.SECONDS);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.stop();
                stopped.countDown();
            }, "executor-server-stop"));
            LOG.info("Executor listening on " + host + ":" + port);
            // the server's threads may all be daemons: the main thread holds the JVM up until a signal
            stopped.await();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.log(Level.SEVERE, "Executor could not listen on " + host + ":" + port, e);
            System.exit(CANNOT_LISTEN);
        }
    }

    /** Liberty's {@code *} (every interface) as the JDK server's wildcard address. */
    static String listenHost(String configured) {
        if (configured == null || configured.isBlank() || configured.equals("*")) {
            return "0.0.0.0";
        }
        return configured;
    }

    static int listenPort(String configured) {
        if (configured == null || configured.isBlank()) {
            return DEFAULT_PORT;
        }
        int port = Integer.parseInt(configured.trim());
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("EXECUTOR_PORT " + port + " is not a port");
        }
        return port;
    }
}
