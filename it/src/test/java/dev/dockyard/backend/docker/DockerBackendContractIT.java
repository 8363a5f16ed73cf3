package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Docker backend keeps the backends' contract on this machine's engine, with the sandbox image
 * the run built: real containers whose executor boots and is asked whether it takes a key. It lives
 * in it/ because only here are the engine and the image there (the contract's other subclasses run
 * with the control plane's unit tests); in the backend's package, to make the backend as its node
 * factory does. Its containers are named for this run and removed after each test.
 */
class DockerBackendContractIT extends AbstractRuntimeBackendContractTest {

    private static final String RUN = HexFormat.of().formatHex(new byte[] {
            (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt(),
            (byte) ThreadLocalRandom.current().nextInt()});
    private static final Duration BOOT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private DockerClient docker;
    private DockerBackend backend;

    @Override
    protected RuntimeBackend node() {
        docker = DockerNodeFactory.client("contract", Optional.empty(), Duration.ofSeconds(60), 8);
        backend = new DockerBackend(docker, new WorkspaceVolumes(docker, null, 0, Clock.systemUTC()),
                SandboxHostSettings.ENGINE_DEFAULTS, DockerBackend.DEFAULT_EGRESS_HELPER);
        return backend;
    }

    @Override
    protected void closeNode() throws IOException {
        docker.close();
    }

    @Override
    protected SandboxSpec spec(String runtimeId, String controlPlane, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, controlPlane, "dockyard-contract-" + RUN + "-" + runtimeId,
                "dockyard/sandbox:latest", 1, 0, 512, 256, "1000", EXECUTOR_PORT, key, List.of(), null, List.of());
    }

    /**
     * Asks the sandbox's executor, on the port the engine published on 127.0.0.1, for {@code /ready}
     * with {@code key}: 200 takes it, 401 refuses it; anything else (booting, restarting) is asked
     * again, for at most a minute.
     */
    @Override
    protected boolean takesKey(String sandboxName, String key) throws Exception {
        URI ready = backend.endpoint(sandboxName, EXECUTOR_PORT).resolve("/ready");
        long deadline = System.nanoTime() + BOOT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(ready).header("X-Session-API-Key", key)
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() == 200) {
                    return true;
                }
                if (answer.statusCode() == 401 || answer.statusCode() == 403) {
                    return false;
                }
            } catch (IOException notYet) {
                // the executor is not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the executor of " + sandboxName + " answered /ready neither 200 nor 401 within " + BOOT);
    }
}
