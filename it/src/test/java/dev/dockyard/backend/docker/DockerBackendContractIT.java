package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import java.io.IOException;
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
        return ExecutorKeys.takes(backend.endpoint(sandboxName, EXECUTOR_PORT), key, BOOT).orElseThrow(() ->
                new AssertionError("the executor of " + sandboxName + " answered /ready neither 200 nor 401 within "
                        + BOOT));
    }
}
