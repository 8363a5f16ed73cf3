package dev.dockyard.backend.docker;

import java.util.Map;

/**
 * How one Docker node confines its sandboxes beyond the fixed hardening of {@link SandboxHardening}:
 * an executor sandbox's root file system read-only with tmpfs at {@code writablePaths} (path →
 * size), the open-file limit of every sandbox, the runtime class a sandbox gets when its request
 * names none ({@code null}: the engine's default runtime), and how many GPUs the node declares
 * (0: none, -1: as many as a request asks for), and the size of a read-only root's home disk in MB
 * where the node's disks are bounded (0: the engine's plain volume, unbounded).
 */
public record SandboxHostSettings(boolean readOnlyRoot, Map<String, String> writablePaths, long nofile,
                                  String defaultRuntimeClass, int gpus, int homeDiskMb) {

    public SandboxHostSettings {
        writablePaths = Map.copyOf(writablePaths);
    }

    /** Settings whose home (if any) is the engine's plain volume. */
    public SandboxHostSettings(boolean readOnlyRoot, Map<String, String> writablePaths, long nofile,
                               String defaultRuntimeClass, int gpus) {
        this(readOnlyRoot, writablePaths, nofile, defaultRuntimeClass, gpus, 0);
    }

    /** Docker's own defaults: a writable root, no further limits; what tests of other things use. */
    public static final SandboxHostSettings ENGINE_DEFAULTS = new SandboxHostSettings(false, Map.of(), 0, null, 0);
}
