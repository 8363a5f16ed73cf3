package dev.dockyard.backend.docker;

import java.util.Map;

/**
 * How one Docker node confines its sandboxes beyond the fixed hardening of {@link DockerBackend}:
 * an executor sandbox's root file system read-only with tmpfs at {@code writablePaths} (path →
 * size), the open-file limit of every sandbox, the runtime class a sandbox gets when its request
 * names none ({@code null}: the engine's default runtime), and how many GPUs the node declares
 * (0: none, -1: as many as a request asks for).
 */
public record SandboxHostSettings(boolean readOnlyRoot, Map<String, String> writablePaths, long nofile,
                                  String defaultRuntimeClass, int gpus) {

    public SandboxHostSettings {
        writablePaths = Map.copyOf(writablePaths);
    }

    /** Docker's own defaults: a writable root, no further limits; what tests of other things use. */
    public static final SandboxHostSettings ENGINE_DEFAULTS = new SandboxHostSettings(false, Map.of(), 0, null, 0);
}
