package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a local node keeps of its sandboxes on disk, under its root (see the package comment):
 * each sandbox's directory ({@code sandboxes/<name>}, the sandbox user's: its workspace, home,
 * temporary files, Liberty's output and the 700 {@code run} directory its session key is handed
 * in), and in {@code records}, root's alone, each sandbox's {@link SandboxRecord} and the log of
 * its executor. Making it prepares the root's directories and their modes.
 *
 * <p>A sandbox name becomes a directory and file name here, so only Dockyard's own names are
 * taken ({@link #checkedName}); a path of the executor's view is mapped to the host only within
 * the sandbox's workspace ({@link #hostPath}).
 */
final class SandboxFiles {

    static final String WORKSPACE = "workspace";
    static final String KEY_DIR = "run";
    static final String KEY_FILE = "session-key";
    static final String PLUGINS_FILE = "plugins";
    /** Where the executor's /workspace is, as the control plane names it for archives. */
    static final String CONTAINER_WORKSPACE = "/workspace";
    private static final List<String> DIRECTORIES = List.of(WORKSPACE, KEY_DIR, "home", "tmp", "liberty");

    private final LocalNodeConfig config;
    private final SandboxUser user;

    SandboxFiles(LocalNodeConfig config, SandboxUser user) {
        this.config = config;
        this.user = user;
        try {
            SafeTree.createReachable(config.root());
            Files.createDirectories(config.records());
            Files.createDirectories(config.sandboxes());
            // the records (pids the control plane signals) are root's alone; the sandboxes'
            // parent only lets the sandbox user reach its own directories by name
            Files.setPosixFilePermissions(config.root(), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(config.records(), PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(config.sandboxes(), PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw new IllegalStateException("local node '" + config.node() + "': cannot use " + config.root() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Sandbox names become directory and file names: Dockyard's own names only. */
    static String checkedName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}") || name.contains("..")) {
            throw new BackendException("'" + name + "' is not a sandbox name");
        }
        return name;
    }

    Path sandboxDir(String name) {
        return config.sandboxes().resolve(name);
    }

    Path recordFile(String name) {
        return config.records().resolve(name + ".properties");
    }

    Path logFile(String name) {
        return config.records().resolve(name + ".log");
    }

    Optional<SandboxRecord> record(String name) {
        return readRecord(recordFile(name));
    }

    /** The record in {@code file}; empty when there is none, or the file is not one. */
    static Optional<SandboxRecord> readRecord(Path file) {
        try {
            return SandboxRecord.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new BackendException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Written whole to a temporary file, then moved over: a reader never sees half a record. */
    void writeRecord(SandboxRecord record) {
        Path file = recordFile(record.name());
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(temporary, record.format(), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /**
     * Makes the sandbox's directory (700) with its subdirectories, hands it its session key and
     * plugins, and gives the whole of it to the sandbox user.
     */
    void layOut(String name, String sessionKey, List<String> plugins) throws IOException {
        Path dir = sandboxDir(name);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        for (String sub : DIRECTORIES) {
            Files.createDirectory(dir.resolve(sub));
        }
        Files.setPosixFilePermissions(dir.resolve(KEY_DIR), PosixFilePermissions.fromString("rwx------"));
        handKey(name, sessionKey, plugins);
        SafeTree.chown(dir, user);
    }

    /**
     * The key file (600, the sandbox user's; the executor deletes it once read) and the plugins to
     * start. Each is written whole and given to the sandbox user in the records' directory, root's
     * alone, then renamed into the sandbox's run directory as opened without following links (the
     * records and the sandboxes are on one file system, under the node's root): root writes and
     * chowns nothing through a path that the sandbox user, or a co-tenant of that user, could
     * have turned into a link. A link where a file goes is replaced, never followed.
     */
    void handKey(String name, String sessionKey, List<String> plugins) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(KEY_FILE, sessionKey);
        if (!plugins.isEmpty()) {
            files.put(PLUGINS_FILE, String.join("\n", plugins));
        }
        List<Path> staged = new ArrayList<>();
        try (SecureDirectoryStream<Path> records = SafeTree.openDirectory(config.records());
             SecureDirectoryStream<Path> sandboxes = SafeTree.openDirectory(config.sandboxes());
             SecureDirectoryStream<Path> sandbox = sandboxes.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
             SecureDirectoryStream<Path> run = sandbox.newDirectoryStream(Path.of(KEY_DIR), LinkOption.NOFOLLOW_LINKS)) {
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path temporary = config.records().resolve(name + "." + file.getKey() + ".tmp");
                staged.add(temporary);
                Files.deleteIfExists(temporary);
                Files.writeString(temporary, file.getValue(), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString(
                        file.getKey().equals(KEY_FILE) ? "rw-------" : "r--------"));
                if (user.switched()) {
                    SafeTree.own(temporary, user);
                }
                records.move(temporary.getFileName(), run, Path.of(file.getKey()));
            }
        } finally {
            for (Path temporary : staged) {
                SafeTree.deleteQuietly(temporary);
            }
        }
    }

    /** Where a path of the executor's view ({@code /workspace...}) is on the host; nothing else is reachable. */
    Path hostPath(String name, String path) {
        Path normal = Path.of(path).normalize();
        Path workspace = Path.of(CONTAINER_WORKSPACE);
        if (!normal.startsWith(workspace)) {
            throw new BackendException("local sandboxes have only " + CONTAINER_WORKSPACE + " to archive, not " + path);
        }
        return sandboxDir(name).resolve(WORKSPACE).resolve(workspace.relativize(normal).toString()).normalize();
    }

    /** The last 20 lines of the sandbox's executor log ("" when there is none to read). */
    String logTail(String name) {
        try {
            List<String> lines = Files.readAllLines(logFile(name), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }
}
