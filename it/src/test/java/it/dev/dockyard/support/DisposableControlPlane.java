package it.dev.dockyard.support;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The control plane a suite has to itself: the destructive suites kill -9 it, restart it and cut
 * it off from an engine (KillNineIT, LocalBackendIT, WarmPoolIT, HealthIT), so that the shared one
 * never goes down under the suites running beside them; the suites that measure the whole server
 * (MetricsIT's counters, BoundedWaitsIT's thread dump, HostileInputIT's runtimes and log) find only
 * their own doing there. One for the run, with the shared settings ({@link
 * ControlPlaneSettings#common}) but an instance, database, port and local root of its own; its
 * {@code node2} is reached through an {@link Forwarder} that HealthIT closes and reopens.
 *
 * <p>A suite that uses it takes {@code @ResourceLock(DisposableControlPlane.LOCK)}, so such suites
 * run one after the other (each leaves it running),
 * {@code @ExtendWith(DisposableControlPlane.Lifecycle.class)}, which starts it for the first of them,
 * and {@code @Tag(DisposableControlPlane.PROFILE)}.
 */
public final class DisposableControlPlane {

    public static final String LOCK = "disposable-control-plane";
    /** The tag of its suites: {@code -Dgroups=disposable} runs them alone, {@code -DexcludedGroups=disposable} the rest. */
    public static final String PROFILE = "disposable";
    public static final String INSTANCE = System.getProperty("dockyard.instance", "it") + "-disposable";
    private static final int PORT = ControlPlaneSettings.DISPOSABLE_PORT;
    /** node2's forwarder: a fixed port, so that its settings are known before it runs. */
    private static final int NODE2_PORT = PORT + 1;
    private static final ControlPlane SERVER = new ControlPlane(INSTANCE, PORT, settings());

    private static volatile Forwarder node2;

    private DisposableControlPlane() {
    }

    private static Map<String, String> settings() {
        Map<String, String> settings = ControlPlaneSettings.common(INSTANCE, PORT);
        settings.put("DOCKYARD_NODE_NODE2_DOCKER_HOST", "tcp://127.0.0.1:" + NODE2_PORT);
        return settings;
    }

    /** The server (running once {@link Lifecycle} ran for the suite). */
    public static ControlPlane server() {
        return SERVER;
    }

    public static DockyardApi api() {
        return SERVER.admin();
    }

    public static Path serverLog() {
        return SERVER.log();
    }

    /** The forwarder its node2 is reached through: HealthIT closes it; whoever closes it reopens it. */
    public static Forwarder node2() {
        return node2;
    }

    public static void node2(Forwarder reopened) {
        node2 = reopened;
    }

    public static Path localRoot() {
        return ControlPlaneSettings.localRoot(INSTANCE);
    }

    private static final class Running implements ExtensionContext.Store.CloseableResource {

        Running() throws Exception {
            node2 = Forwarder.on(Path.of(DockerCli.NODE2.substring("unix://".length())), NODE2_PORT);
            long begun = System.nanoTime();
            try {
                SERVER.startFresh();
            } catch (Exception | AssertionError e) {
                // neither a server that never answered nor the forwarder's port is left behind
                SERVER.stop();
                node2.close();
                throw e;
            }
            System.out.printf("the disposable control plane answered %.1f s after its start%n",
                    (System.nanoTime() - begun) / 1e9);
        }

        @Override
        public void close() throws Exception {
            try {
                SERVER.stop();
                for (String name : DockerCli.containersLabelled("dev.dockyard.control-plane=" + INSTANCE)) {
                    DockerCli.run("rm", "-f", "-v", name);
                }
            } finally {
                node2.close();
            }
        }
    }

    /** Starts it before the first suite that needs it; it stops when the run ends. */
    public static final class Lifecycle implements BeforeAllCallback {

        @Override
        public void beforeAll(ExtensionContext context) {
            RunScope.once(context, Running.class, "the disposable control plane", Running::new);
        }
    }
}
