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
 * plane started here and the build's own control plane restarted with it as its node
 * {@code remote1}; {@link #stop()} restores the build's control plane and stops the second one.
 * It is not kept for the whole IT phase: a second Liberty for every suite would cost each one its
 * memory, and every other suite would see a third node.
 */
public final class RemoteNodeFixture {

    public static final String NODE = "remote1";
    private static final SecondControlPlane SECOND = new SecondControlPlane("remote-suite-b", 19383);
    private static Path keyFile;

    private RemoteNodeFixture() {
    }

    /** Starts the second control plane and makes it the build's node {@value #NODE}. */
    public static void start() throws Exception {
        SECOND.startFresh();
        DockyardApi.Answer user = SECOND.admin().post("users", Json.createObjectBuilder().add("userId", "node-suites")
                .add("role", "user").build());
        if (user.status() != 201) {
            throw new AssertionError("user on the second control plane: " + user.status() + " " + user.body());
        }
        keyFile = Files.createTempFile("remote1-key", "", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        Files.writeString(keyFile, user.json().getString("apiKey"));
        ControlPlaneServer.restart(Map.of(
                "DOCKYARD_NODES", "local,node2," + NODE,
                "DOCKYARD_NODE_REMOTE1_TYPE", "remote",
                "DOCKYARD_NODE_REMOTE1_URL", SECOND.url(),
                "DOCKYARD_NODE_REMOTE1_API_KEY_FILE", keyFile.toString()));
    }

    /** The build's control plane as the build started it; the second one stopped, its sandboxes removed. */
    public static void stop() throws Exception {
        try {
            // a suite that failed may leave a live runtime on the node the restored control plane has not
            DockyardApi build = new DockyardApi();
            build.get("runtimes").json().getJsonArray("runtimes").stream().map(JsonValue::asJsonObject)
                    .filter(r -> NODE.equals(r.getString("node", "")))
                    .filter(r -> !r.getString("status").equals("STOPPED") && !r.getString("status").equals("ERROR"))
                    .forEach(r -> build.delete("runtimes/" + r.getString("id")));
            ControlPlaneServer.restart(Map.of());
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

    /**
     * The fixture around a suite ({@code @ExtendWith}): a second control plane up before any
     * {@code @BeforeAll} of the suite provisions on it, down after every {@code @AfterAll}.
     */
    public static final class Lifecycle implements BeforeAllCallback, AfterAllCallback {

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            start();
        }

        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            stop();
        }
    }
}
