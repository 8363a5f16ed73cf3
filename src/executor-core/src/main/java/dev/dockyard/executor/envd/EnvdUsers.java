package dev.dockyard.executor.envd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Who an envd call acts as, and where its relative paths start. The executor runs as one user
 * (uid 1000, {@code dockyard} in Dockyard's image) without the capabilities to switch to another,
 * so every call acts as that user: E2B's default name {@code user}, the executor's own name, and
 * {@code root} when (and only when) the executor is root, all name it. Any other name is refused
 * as envd refuses an unknown user: {@code unauthenticated}, "invalid username: '<x>'".
 *
 * <p>Relative paths resolve against the user's home: for {@code user} (and for calls naming no
 * user, E2B's default) {@code /home/user} when it exists (Dockyard's image links it to the
 * sandbox user's home), else the executor's {@code HOME}.
 */
final class EnvdUsers {

    /** E2B's default user name. */
    static final String E2B_USER = "user";
    static final Path E2B_HOME = Path.of("/home/user");

    /** A user calls act as: the name given (for USER and LOGNAME the system's) and its home. */
    record User(String name, Path home) {
    }

    private final String systemName;
    private final boolean root;
    private final Path home;
    private final Path e2bHome;

    EnvdUsers(String systemName, boolean root, Path home, Path e2bHome) {
        this.systemName = systemName;
        this.root = root;
        this.home = home;
        this.e2bHome = e2bHome;
    }

    /** The user this process runs as; {@code home} is its HOME. */
    static EnvdUsers ofThisProcess(Path home) {
        return new EnvdUsers(System.getProperty("user.name"), runsAsRoot(), home, E2B_HOME);
    }

    /** Whether this process is uid 0 (the owner of {@code /proc/self}). */
    private static boolean runsAsRoot() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** The name processes see in USER and LOGNAME: the system's, whatever name the call used. */
    String systemName() {
        return systemName;
    }

    /** The user of an RPC's {@code Authorization: Basic base64(user:)} header; none: the default. */
    User fromAuthorization(String header) {
        if (header == null || header.isBlank()) {
            return named(null);
        }
        String value = header.strip();
        if (!value.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw new ConnectError("unauthenticated", "invalid authorization header");
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(value.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ConnectError("unauthenticated", "invalid authorization header");
        }
        int colon = decoded.indexOf(':');
        return named(colon < 0 ? decoded : decoded.substring(0, colon));
    }

    /** The user of {@code /files}' {@code username} parameter; null or empty: the default. */
    User named(String name) {
        if (name == null || name.isEmpty() || name.equals(E2B_USER)) {
            return new User(E2B_USER, Files.isDirectory(e2bHome) ? e2bHome : home);
        }
        if (name.equals(systemName) || (root && name.equals("root"))) {
            return new User(name, home);
        }
        throw new ConnectError("unauthenticated", "invalid username: '" + name + "'");
    }

    /** {@code path} for {@code user}: empty is the home, {@code ~} and relative paths start there. */
    static Path resolve(User user, String path) {
        if (path == null || path.isEmpty() || path.equals("~")) {
            return user.home();
        }
        if (path.startsWith("~/")) {
            return user.home().resolve(path.substring(2)).normalize();
        }
        if (path.indexOf('\0') >= 0) {
            throw ConnectError.invalidArgument("the path holds a NUL byte");
        }
        return user.home().resolve(path).normalize();
    }
}
