package it.dev.dockyard.executor;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The executor suites on the it control plane's {@code cli} node ({@code cli1}: no sandbox, the
 * runtime's shell runs on this host as the control plane's user). What a container would throw
 * away with itself stays on the host here: the few files the suites write into the host's
 * {@code /tmp} are removed before and after each suite, so that no run sees another's.
 */
final class CliNodeSuites {

    static final String NODE = "cli1";
    /** The host paths the suites themselves write (BashProtocolIT, FileTransferIT, PathConfinementIT). */
    private static final List<String> HOST_TMP = List.of("/tmp/once.txt", "/tmp/typed.txt", "/tmp/deep",
            "/tmp/evil.txt", "/tmp/outside", "/tmp/marker");

    private CliNodeSuites() {
    }

    static Sandbox start() {
        cleanHostTmp();
        return NodeSandbox.start(NODE);
    }

    static void cleanHostTmp() {
        for (String path : HOST_TMP) {
            delete(Path.of(path));
        }
    }

    private static void delete(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new AssertionError("could not clear " + path + " of an earlier run: " + e, e);
        }
    }
}
