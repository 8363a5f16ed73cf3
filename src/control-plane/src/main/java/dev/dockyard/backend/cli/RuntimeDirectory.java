package dev.dockyard.backend.cli;

import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * One cli runtime's directory under the node's root, and its marker ({@value #MARKER}): what the
 * node lists as managed, before and after a restart of the control plane.
 */
record RuntimeDirectory(Path path) {

    static final String MARKER = "runtime.properties";
    /** Sandbox names become directory names: nothing that could climb out or hide. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    /** What the marker records. */
    record Marker(String runtimeId, String conversationId, String controlPlane, Instant createdAt) {
    }

    static RuntimeDirectory of(Path root, String sandboxName) {
        if (sandboxName == null || !NAME.matcher(sandboxName).matches() || sandboxName.contains("..")) {
            throw new BackendException("'" + sandboxName + "' cannot name a cli runtime's directory");
        }
        return new RuntimeDirectory(root.resolve(sandboxName));
    }

    String name() {
        return path.getFileName().toString();
    }

    /** The agent's files; the shell starts here. */
    Path workspace() {
        return path.resolve("workspace");
    }

    Path home() {
        return path.resolve("home");
    }

    /** 700: pushed configuration and long commands. */
    Path run() {
        return path.resolve("run");
    }

    boolean exists() {
        return Files.isRegularFile(path.resolve(MARKER));
    }

    /** Makes the directories (the private ones 700) and writes the marker last. */
    void create(Marker marker) throws IOException {
        Files.createDirectories(path.getParent());
        Files.createDirectory(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createDirectories(workspace());
        Files.createDirectory(home(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createDirectory(run(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Properties p = new Properties();
        p.setProperty("runtime-id", marker.runtimeId());
        p.setProperty("conversation-id", marker.conversationId() == null ? "" : marker.conversationId());
        p.setProperty("control-plane", marker.controlPlane());
        p.setProperty("created-at", marker.createdAt().toString());
        Path tmp = path.resolve(MARKER + ".tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, "a Dockyard cli runtime; removed with it");
        }
        Files.move(tmp, path.resolve(MARKER));
    }

    Optional<Marker> marker() {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(path.resolve(MARKER), StandardCharsets.UTF_8)) {
            p.load(in);
            return Optional.of(new Marker(p.getProperty("runtime-id", ""), p.getProperty("conversation-id", ""),
                    p.getProperty("control-plane", ""), Instant.parse(p.getProperty("created-at"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Deletes the directory and all in it, never following a link out of it; gone already is success. */
    void delete() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        // the marker first: a directory half deleted is no longer listed as a runtime
        Files.deleteIfExists(path.resolve(MARKER));
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                // a directory the agent made unreadable or unwritable must still go
                dir.toFile().setWritable(true, true);
                dir.toFile().setExecutable(true, true);
                dir.toFile().setReadable(true, true);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
