package dev.dockyard.backend.cli;

import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxWorkspace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The cli backend's directories and loopback executors keep the backends' contract. */
class CliBackendContractTest extends AbstractRuntimeBackendContractTest {

    @TempDir
    Path root;

    private CliBackend cli;
    private final HttpClient http = HttpClient.newHttpClient();

    @Override
    protected RuntimeBackend node() {
        cli = new CliBackend(new CliNodeConfig("cli1", root, "dockyard/sandbox:latest", 1000), Clock.systemUTC());
        return cli;
    }

    @Override
    protected void closeNode() {
        cli.close();
    }

    @Override
    protected SandboxSpec spec(String runtimeId, String controlPlane, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, controlPlane, runtimeId, "dockyard/sandbox:latest", 1, 0,
                512, 256, "dockyard", EXECUTOR_PORT, key, List.of(), null, List.of())
                .withWorkspace(SandboxWorkspace.fresh(1024));
    }

    /** Its executor's own answer: {@code /ready} is 200 with the key it took, 403 with another. */
    @Override
    protected boolean takesKey(String sandboxName, String key) throws Exception {
        URI executor = cli.endpoint(sandboxName, EXECUTOR_PORT);
        return http.send(HttpRequest.newBuilder(executor.resolve("/ready")).header("X-Session-API-Key", key).GET()
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    }
}
