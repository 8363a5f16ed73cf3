package dev.dockyard.executor.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the executor was started with, read once from the environment.
 *
 * <p>The session key comes from {@code SESSION_API_KEY} (OpenHands) or, preferred by Dockyard,
 * from the file named by {@code SESSION_API_KEY_FILE}, which is deleted once read so the key is
 * neither in {@code docker inspect} nor readable by the agent's shell afterwards.
 */
public record ExecutorSettings(byte[] sessionKey, Path workspace, Duration defaultTimeout,
                               Duration noOutputTimeout, String shell, boolean filesAnywhere,
                               List<String> plugins) {

    public static final String SESSION_KEY_ENV = "SESSION_API_KEY";
    public static final String SESSION_KEY_FILE_ENV = "SESSION_API_KEY_FILE";

    /** Where the executor bundle is (bin/ holds the plugins' helpers): the image's /dockyard. */
    public Path bundle() {
        return Path.of(System.getenv().getOrDefault("DOCKYARD_BUNDLE", "/dockyard"));
    }

    /** Variables the agent's shell must never inherit. */
    public static final List<String> PRIVATE_ENV = List.of(SESSION_KEY_ENV, SESSION_KEY_FILE_ENV);

    public static ExecutorSettings fromEnvironment(Map<String, String> env) {
        List<String> plugins = plugins(env);
        byte[] key = readSessionKey(env).orElseThrow(() -> new IllegalStateException(
                "No session key: set " + SESSION_KEY_ENV + " or " + SESSION_KEY_FILE_ENV
                        + "; the executor never runs unauthenticated"));
        Path workspace = Path.of(env.getOrDefault("DOCKYARD_WORKSPACE", "/workspace"));
        Duration timeout = Duration.ofMillis((long) (1000 * Double.parseDouble(
                env.getOrDefault("DOCKYARD_DEFAULT_TIMEOUT_SECONDS", "120"))));
        Duration noOutput = Duration.ofMillis((long) (1000 * Double.parseDouble(
                env.getOrDefault("NO_CHANGE_TIMEOUT_SECONDS", "10"))));
        // the runtime's security policy may let file actions leave the workspace
        boolean anywhere = "anywhere".equalsIgnoreCase(env.getOrDefault("DOCKYARD_FILE_ACCESS", "workspace"));
        return new ExecutorSettings(key, workspace, timeout, noOutput, env.getOrDefault("DOCKYARD_SHELL", "/bin/bash"),
                anywhere, plugins);
    }

    /**
     * The plugins to start: {@code DOCKYARD_PLUGINS} (comma-separated), else the file
     * {@code plugins} beside the session key file, one name a line (the control plane writes it
     * into the container before it starts, with the key). Read before the key file is consumed.
     */
    private static List<String> plugins(Map<String, String> env) {
        String listed = env.get("DOCKYARD_PLUGINS");
        if (listed == null) {
            String keyFile = env.get(SESSION_KEY_FILE_ENV);
            Path file = keyFile == null || keyFile.isBlank() ? null : Path.of(keyFile).resolveSibling("plugins");
            if (file != null && Files.isReadable(file)) {
                try {
                    listed = Files.readString(file, StandardCharsets.UTF_8).replace('\n', ',');
                } catch (IOException e) {
                    listed = "";
                }
            }
        }
        return listed == null ? List.of() : Arrays.stream(listed.split(","))
                .map(String::strip).filter(n -> !n.isEmpty()).distinct().toList();
    }

    private static Optional<byte[]> readSessionKey(Map<String, String> env) {
        String file = env.get(SESSION_KEY_FILE_ENV);
        if (file != null && !file.isBlank()) {
            Path path = Path.of(file);
            try {
                String key = Files.readString(path, StandardCharsets.UTF_8).strip();
                // Once in memory the file has served its purpose; the agent must not find it later
                Files.deleteIfExists(path);
                if (!key.isEmpty()) {
                    return Optional.of(key.getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // a missing file means the key is already consumed by an earlier start: fall through
            }
        }
        String key = env.get(SESSION_KEY_ENV);
        if (key != null && !key.isBlank()) {
            return Optional.of(key.strip().getBytes(StandardCharsets.UTF_8));
        }
        return Optional.empty();
    }
}
