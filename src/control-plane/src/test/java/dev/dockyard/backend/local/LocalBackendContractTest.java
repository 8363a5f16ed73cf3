package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.AbstractRuntimeBackendContractTest;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
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
        Path bin = Files.createDirectories(dir.resolve("bundle/bin"));
        Files.writeString(bin.resolve("start-executor"), LocalBackendTest.START_EXECUTOR);
        Files.setPosixFilePermissions(bin.resolve("start-executor"), PosixFilePermissions.fromString("rwxr-xr-x"));
        LocalNodeConfig config = new LocalNodeConfig("local1", "unit", dir.resolve("root"), dir.resolve("bundle"),
                "ignored", Duration.ofSeconds(1), List.of("dockyard/sandbox:latest"), false, dir, "1000");
        long uid = (Integer) Files.getAttribute(dir, "unix:uid");
        local = new LocalBackend(config, new SandboxUser("self", (int) uid, 0, false), processes,
                CgroupLimits.off("test"), Clock.systemUTC());
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
        for (int i = 0; i < 100 && !settled(sandboxName); i++) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
        // settled, its key-seen is the one this start wrote, not an earlier start's
        assertTrue(settled(sandboxName), "the stand-in executor did not settle within 5 s");
        Path seen = local.sandboxDir(sandboxName).resolve("tmp/key-seen");
        return Files.exists(seen) && Files.readString(seen).equals(key);
    }

    /** Its processes are the stand-in's two sleeps and nothing else (bash forks on its way there). */
    private boolean settled(String sandboxName) {
        List<Long> pids = processes.carrying(LocalBackend.SANDBOX_VARIABLE, sandboxName, null);
        return pids.size() == 2 && pids.stream().allMatch(pid -> {
            try {
                return Files.readString(Path.of("/proc/" + pid + "/cmdline")).startsWith("sleep");
            } catch (IOException e) {
                return false;
            }
        });
    }
}
