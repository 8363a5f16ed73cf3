package it.dev.dockyard.support;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The files the executor suites write into {@code /tmp} (BashProtocolIT, FileTransferIT,
 * PathConfinementIT), for suites whose runtime's shell runs on this host (a cli node): a container
 * would throw them away with itself, here they are removed before and after each suite, so that no
 * run sees another's. Such suites hold {@link #LOCK}: they run one at a time, never beside another
 * writing the same paths.
 */
public final class HostTmp {

    public static final String LOCK = "host-tmp";

    private static final List<String> PATHS = List.of("/tmp/once.txt", "/tmp/typed.txt", "/tmp/deep",
            "/tmp/evil.txt", "/tmp/outside", "/tmp/marker");

    private HostTmp() {
    }

    public static void clear() {
        for (String path : PATHS) {
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
