package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local backend's host process trees keep the backends' contract, with {@link
 * LocalBackendTest}'s stand-in executor: it copies the key it was handed to {@code tmp/key-seen}
 * before it settles into its two sleeps.
 */
class LocalBackendContractTest extends AbstractRuntimeBackendContractTest {

    @TempDir
    Path dir;

    private LocalBackend local;
    private final ProcessTable processes = ProcessTable.host();

    @Override
    protected RuntimeBackend node() throws IOException {
        local = LocalBackendTest.standIn(dir, processes);
        return local;
    }

    @Override
    protected SandboxSpec spec(String runtimeId, String controlPlane, String key) {
        return new SandboxSpec(runtimeId, "conv-" + runtimeId, controlPlane, "sb-" + runtimeId,
                "dockyard/sandbox:latest", 1, 0, 512, 256, "1000", EXECUTOR_PORT, key, List.of(), null, List.of());
    }

    /** Once its executor settled (its two sleeps, up to 5 s), the key it copied. */
    @Override
    protected boolean takesKey(String sandboxName, String key) throws Exception {
        for (int i = 0; i < 100 && !LocalBackendTest.standInSettled(processes, sandboxName); i++) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
        // settled, its key-seen is the one this start wrote, not an earlier start's
        assertTrue(LocalBackendTest.standInSettled(processes, sandboxName),
                "the stand-in executor did not settle within 5 s");
        Path seen = local.sandboxDir(sandboxName).resolve("tmp/key-seen");
        return Files.exists(seen) && Files.readString(seen).equals(key);
    }
}
