package dev.dockyard.images;

import dev.dockyard.backend.ImageBuildException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The executor bundle on the control plane's disk (docker/build-executor-bundle.sh makes it): what
 * every runtime image carries under /dockyard, and the inputs of its tags.
 *
 * @param contentHash    {@link RuntimeImageTags#bundleHash} of everything: the source tag
 * @param dependencyLock what the executor depends on but rarely changes — the JRE's and Liberty's
 *                       file names and sizes: part of the lock tag
 * @param libertyVersion Open Liberty's product version: part of the lock tag
 */
public record ExecutorBundle(Path dir, String contentHash, String dependencyLock, String libertyVersion) {

    /** Reads a bundle; a bundle that changed on disk gives another record. */
    public static ExecutorBundle read(Path dir) {
        if (!Files.isExecutable(dir.resolve("bin/start-executor")) || !Files.isDirectory(dir.resolve("jre"))
                || !Files.isDirectory(dir.resolve("wlp")) || !Files.isRegularFile(dir.resolve("executor/lib/classpath"))) {
            throw new ImageBuildException("no executor bundle at " + dir + " (MP Config dockyard.images.bundle): "
                    + "build it with 'mvn -pl src/executor -am package' (target/executor-bundle)");
        }
        try {
            StringBuilder lock = new StringBuilder();
            for (String part : List.of("jre", "wlp/lib")) {
                try (Stream<Path> tree = Files.walk(dir.resolve(part))) {
                    for (Path file : tree.filter(Files::isRegularFile).sorted().toList()) {
                        lock.append(dir.relativize(file)).append(' ').append(Files.size(file)).append('\n');
                    }
                }
            }
            Properties product = new Properties();
            Path versions = dir.resolve("wlp/lib/versions/openliberty.properties");
            if (Files.exists(versions)) {
                try (InputStream in = Files.newInputStream(versions)) {
                    product.load(in);
                }
            }
            return new ExecutorBundle(dir, RuntimeImageTags.bundleHash(dir), RuntimeImageTags.hash(lock.toString()),
                    product.getProperty("com.ibm.websphere.productVersion", "unknown"));
        } catch (IOException e) {
            throw new ImageBuildException("could not read the executor bundle at " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * A cheap stamp of the bundle's state (names, sizes, change times): while it stays the same,
     * the bundle need not be hashed again. Change times, not modification times: the bundle script
     * gives every file one fixed mtime, but writing or touching a file always moves its ctime.
     */
    public static String stamp(Path dir) {
        StringBuilder stamp = new StringBuilder();
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path file : tree.filter(Files::isRegularFile).sorted().toList()) {
                stamp.append(file).append(' ').append(Files.size(file)).append(' ').append(changed(file)).append('\n');
            }
        } catch (IOException e) {
            return "unreadable " + e.getMessage();
        }
        return RuntimeImageTags.hash(stamp.toString());
    }

    private static Object changed(Path file) throws IOException {
        try {
            return Files.getAttribute(file, "unix:ctime");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return Files.getLastModifiedTime(file);
        }
    }
}
