package it.dev.dockyard.e2e;

import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For suites in other packages (the executor protocol suites' Remote variants): a second control
 * plane, and the build's own control plane running with it as its node {@code remote1} (explicit
 * placement: only runtimes that name it go there).
 *
 * <p>One second control plane serves every such suite of the run: the first suite starts it and
 * restarts the build's control plane with the node; the next ones find both as they are (or only
 * restart the build's control plane, if a suite between them restarted it with other settings).
 * Each restart of a Liberty costs 20 s on a quiet machine and minutes on a loaded one, and the
 * suites ran one pair each before. Between suites only their leftover runtimes on the node are
 * deleted; the second control plane is stopped when the whole run ends (a resource of JUnit's root
 * store), where the build stops its own. The failsafe run order is alphabetical (it/pom.xml), so
 * the Remote suites follow one another and the other suites never see a third node.
 */
public final class RemoteNodeFixture {

    public static final String NODE = "remote1";
    private static final SecondControlPlane SECOND = new SecondControlPlane("remote-suite-b", 19383);
    private static Path keyFile;

    private RemoteNodeFixture() {
    }

    /** The build's control plane's settings with the node. */
    private static Map<String, String> withTheNode() {
        return Map.of(
                "DOCKYARD_NODES", "local,node2,local1,cli1," + NODE,
                "DOCKYARD_NODE_REMOTE1_TYPE", "remote",
                "DOCKYARD_NODE_REMOTE1_PLACEMENT", "explicit",
                "DOCKYARD_NODE_REMOTE1_URL", SECOND.url(),
                "DOCKYARD_NODE_REMOTE1_API_KEY_FILE", keyFile.toString());
    }

    /** Starts the second control plane and makes it the build's node {@value #NODE}. */
    private static void start() throws Exception {
        SECOND.startFresh();
        DockyardApi.Answer user = SECOND.admin().post("users", Json.createObjectBuilder().add("userId", "node-suites")
                .add("role", "user").build());
        if (user.status() != 201) {
            throw new AssertionError("user on the second control plane: " + user.status() + " " + user.body());
        }
        keyFile = Files.createTempFile("remote1-key", "", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        Files.writeString(keyFile, user.json().getString("apiKey"));
    }

    /** The build's control plane with the node, restarted only when it runs with other settings. */
    private static void useAsNode() throws Exception {
        if (!ControlPlaneServer.overrides().equals(withTheNode())) {
            ControlPlaneServer.restart(withTheNode());
        }
    }

    /** Deletes what a suite left running on the node (a failed suite may leave a live runtime). */
    private static void deleteLeftovers() {
        if (!ControlPlaneServer.overrides().equals(withTheNode())) {
            return;
        }
        DockyardApi build = new DockyardApi();
        build.get("runtimes").json().getJsonArray("runtimes").stream().map(JsonValue::asJsonObject)
                .filter(r -> NODE.equals(r.getString("node", "")))
                .filter(r -> !r.getString("status").equals("STOPPED") && !r.getString("status").equals("ERROR"))
                .forEach(r -> build.delete("runtimes/" + r.getString("id")));
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
            if (keyFile != null) {
                Files.deleteIfExists(keyFile);
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
     * of the suite provisions on it; the suite's leftovers deleted after every {@code @AfterAll}.
     */
    public static final class Lifecycle implements BeforeAllCallback, AfterAllCallback {

        private static final ExtensionContext.Namespace RUN = ExtensionContext.Namespace.create(RemoteNodeFixture.class);

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            context.getRoot().getStore(RUN).getOrComputeIfAbsent(Running.class, type -> {
                try {
                    return new Running();
                } catch (Exception e) {
                    throw new IllegalStateException("the second control plane did not start", e);
                }
            }, Running.class);
            useAsNode();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            deleteLeftovers();
        }
    }
}
