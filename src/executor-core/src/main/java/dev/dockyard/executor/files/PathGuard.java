package dev.dockyard.executor.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Keeps file actions inside the workspace (unless the runtime's policy lets them roam).
 *
 * <p>The check is on the real path: the path is resolved against the shell's working directory,
 * normalised, and then every symbolic link in it is followed, for the part that exists, so neither
 * {@code ..}, nor an absolute path, nor a link planted inside the workspace that points out of it
 * gets through. Nothing is URL-decoded: {@code %2e%2e} is a file name like any other. NUL bytes
 * and other control characters are refused outright.
 */
public final class PathGuard {

    /** The text agents were trained on when OpenHands refuses a path. */
    static final String REFUSAL = "You're not allowed to access this path: %s. You can only access paths inside the "
            + "workspace.";

    private final Path workspace;
    private volatile boolean anywhere;
    /** On a host rather than in a sandbox: names are checked too, and nothing may roam outside. */
    private final boolean host;

    /**
     * @param anywhere true when the runtime's security policy allows file actions outside the workspace
     */
    public PathGuard(Path workspace, boolean anywhere) {
        this(workspace, anywhere, false);
    }

    private PathGuard(Path workspace, boolean anywhere, boolean host) {
        this.workspace = realOrSelf(workspace.toAbsolutePath().normalize());
        this.anywhere = anywhere;
        this.host = host;
    }

    /**
     * The guard of an executor embedded on a host (the {@code cli} runtimes): confined to
     * {@code directory} whatever the runtime's policy says, names refused by {@link HostFileNames},
     * and no special file (device, FIFO, socket) inside it either.
     */
    public static PathGuard onHost(Path directory) {
        return new PathGuard(directory, false, true);
    }

    public Path workspace() {
        return workspace;
    }

    /** The runtime's security policy, as configured after start. */
    public void allowAnywhere(boolean allowed) {
        // on a host, "anywhere" would be the host's own files: such a runtime stays in its directory
        this.anywhere = allowed && !host;
    }

    /**
     * The absolute, normalised path an action may use.
     *
     * @throws PathRefusedException when it is malformed or leads outside the workspace
     */
    public Path check(String requested, Path workingDir) {
        if (requested == null || requested.isEmpty()) {
            throw new PathRefusedException("A path is required.");
        }
        if (requested.chars().anyMatch(c -> c == 0 || (c < 0x20 && c != '\t'))) {
            throw new PathRefusedException("The path contains control characters (NUL, newline...): refused.");
        }
        if (host) {
            // the names the agent chose, not those of the directory an administrator configured
            String prefix = workspace + "/";
            String chosen = requested.startsWith(prefix) ? requested.substring(prefix.length()) : requested;
            HostFileNames.refusal(chosen).ifPresent(why -> {
                throw new PathRefusedException(why);
            });
        }
        Path path;
        try {
            Path given = Path.of(requested);
            path = (given.isAbsolute() ? given : workingDir.resolve(given)).normalize();
        } catch (InvalidPathException e) {
            throw new PathRefusedException("Invalid path: " + requested);
        }
        if (anywhere) {
            return path;
        }
        Path real = realPathOfLongestExistingPrefix(path);
        if (!real.startsWith(workspace)) {
            throw new PathRefusedException(String.format(REFUSAL, requested));
        }
        if (host && Files.exists(real) && !Files.isRegularFile(real) && !Files.isDirectory(real)) {
            throw new PathRefusedException("Not a regular file or directory (a device, FIFO or socket): " + requested);
        }
        return path;
    }

    /**
     * Follows every link in the part of {@code path} that exists; appends the rest, which cannot
     * contain links (it does not exist yet) nor {@code ..} (the path is normalised).
     */
    static Path realPathOfLongestExistingPrefix(Path path) {
        Path existing = path;
        Path rest = null;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            Path name = existing.getFileName();
            rest = rest == null ? name : name.resolve(rest);
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            // a dangling link: where it points is what counts, and that is not known to be safe
            try {
                Path target = Files.readSymbolicLink(existing);
                real = realPathOfLongestExistingPrefix(existing.resolveSibling(target).normalize());
            } catch (IOException | UnsupportedOperationException notALink) {
                real = existing;
            }
        }
        return rest == null ? real : real.resolve(rest).normalize();
    }

    private static Path realOrSelf(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path;
        }
    }

    /** A path the guard will not let through; the message is for the agent. */
    public static class PathRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public PathRefusedException(String message) {
            super(message);
        }
    }
}
