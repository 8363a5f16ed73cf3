package it.dev.dockyard.support;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The shared control plane: one Liberty server for the whole run, started before the first suite
 * by {@link Lifecycle} (registered for every suite, META-INF/services) with {@link
 * ControlPlaneSettings#shared()}, and stopped when the run ends. Nothing restarts or kills it:
 * suites that must do that use the {@link DisposableControlPlane}, and nodes are part of its
 * settings, so that suites can run beside one another in any order.
 */
public final class ControlPlaneServer {

    private static final ControlPlane SHARED = new ControlPlane(System.getProperty("dockyard.instance"),
            ControlPlaneSettings.BASE_PORT, ControlPlaneSettings.shared(),
            Path.of(System.getProperty("dockyard.server-output")), true);

    private ControlPlaneServer() {
    }

    /** Starts it with the shared settings (its nodes' kubeconfig and key files first) and waits until it answers. */
    private static void start() throws Exception {
        Files.createDirectories(SHARED.output().getParent());
        Files.writeString(ControlPlaneSettings.kubeconfig(), ControlPlaneSettings.kubeconfigText());
        for (String remote : new String[] {"remote1", "remote2"}) {
            ControlPlaneSettings.writeRemoteKey(remote, "no-user-there-yet");
        }
        SHARED.start();
    }

    /** The server as a resource of the run: stopped when JUnit closes its root store. */
    private static final class Running implements ExtensionContext.Store.CloseableResource {

        Running() throws Exception {
            long started = System.nanoTime();
            try {
                start();
            } catch (Exception | AssertionError e) {
                // a server that started but never answered is not left behind
                SHARED.stop();
                throw e;
            }
            System.out.printf("the shared control plane answered %.1f s after its start%n",
                    (System.nanoTime() - started) / 1e9);
        }

        @Override
        public void close() throws Exception {
            SHARED.stop();
        }
    }

    /** Before any suite: the shared control plane running (started once for the run, in any order). */
    public static final class Lifecycle implements BeforeAllCallback {

        @Override
        public void beforeAll(ExtensionContext context) {
            RunScope.once(context, Running.class, "the shared control plane", Running::new);
        }
    }
}
