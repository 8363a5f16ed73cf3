package it.dev.dockyard.support;

import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For suites in other packages (the executor protocol suites' Remote variants): a second control
 * plane, the shared control plane's node {@value #NODE} (explicit placement, {@link
 * ControlPlaneSettings#shared()}): the first suite starts it and writes its user's key into the
 * node's key file, which the shared control plane reads again when it changes. It serves every such
 * suite of the run and stops when the run ends (a resource of JUnit's root store); after each suite
 * only its leftover runtimes on the node are deleted.
 */
public final class RemoteNodeFixture {

    public static final String NODE = "remote2";
    private static final ControlPlane SECOND = new ControlPlane("remote-suite-b",
            ControlPlaneSettings.REMOTE2_PORT);

    private RemoteNodeFixture() {
    }

    /** Starts the second control plane and makes it the shared control plane's node {@value #NODE}. */
    private static void start() throws Exception {
        SECOND.startFresh();
        DockyardApi.Answer user = SECOND.admin().post("users", Json.createObjectBuilder().add("userId", "node-suites")
                .add("role", "user").build());
        if (user.status() != 201) {
            throw new AssertionError("user on the second control plane: " + user.status() + " " + user.body());
        }
        ControlPlaneSettings.writeRemoteKey(NODE, user.json().getString("apiKey"));
        new DockyardApi().awaitHealthyNode(NODE, Duration.ofSeconds(60));
    }

    /** Deletes what a suite left running on the node (a failed suite may leave a live runtime). */
    private static void deleteLeftovers() {
        DockyardApi shared = new DockyardApi();
        shared.get("runtimes").json().getJsonArray("runtimes").stream().map(JsonValue::asJsonObject)
                .filter(r -> NODE.equals(r.getString("node", "")))
                .filter(r -> !r.getString("status").equals("STOPPED") && !r.getString("status").equals("ERROR"))
                .forEach(r -> shared.delete("runtimes/" + r.getString("id")));
    }

    /** At the end of the run: leftovers deleted, the second control plane stopped and its sandboxes removed. */
    private static void stop() throws Exception {
        try {
            deleteLeftovers();
        } finally {
            SECOND.stop();
            for (String name : DockerCli.containersLabelled("dev.dockyard.control-plane=" + SECOND.instance())) {
                DockerCli.run("rm", "-f", "-v", name);
            }
        }
    }

    /** The second control plane as a resource of the run: stopped when JUnit closes its root store. */
    private static final class Running implements ExtensionContext.Store.CloseableResource {

        Running() throws Exception {
            start();
        }

        @Override
        public void close() throws Exception {
            stop();
        }
    }

    /**
     * The fixture around a suite ({@code @ExtendWith}): the node ready before any {@code @BeforeAll}
     * of the suite provisions on it. Leftovers are deleted when the run ends, not after each suite:
     * the Remote suites run beside one another, and one's end is not the others'.
     */
    public static final class Lifecycle implements BeforeAllCallback {

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            RunScope.once(context, Running.class, "the second control plane", Running::new);
        }
    }
}
