package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The node's own copy of the executor bundle, under {@code <root>/bundles/<digest>}: the sandbox
 * user reaches it wherever the configured bundle lives (a checkout under a 700 home, say), and a
 * rebuilt or changed bundle never changes under a running sandbox's feet: a new one is a new
 * directory. Copies no sandbox record can use any more (none exist at start) are removed then.
 */
final class StagedBundle {

    private static final Logger LOG = Logger.getLogger(StagedBundle.class.getName());
    /** What tells one bundle from another: its launcher, its executor and server, its JRE. */
    private static final List<String> FINGERPRINTED = List.of("bin/start-executor", "bin/jvm.options",
            "executor/executor.war", "executor/lib/classpath", "wlp/usr/servers/executor/apps/executor.war", "wlp/usr/servers/executor/server.xml", "jre/release");

    private StagedBundle() {
    }

    /** The staged copy of {@code source} (made now when missing); {@code source} itself when it is no bundle. */
    static Path stage(Path source, Path root, boolean sweep) {
        if (!Files.isRegularFile(source.resolve("bin/start-executor"))) {
            return source;
        }
        Path bundles = root.resolve("bundles");
        try {
            SafeTree.createReachable(bundles);
            Files.setPosixFilePermissions(bundles, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path staged = bundles.resolve(digest(source));
            if (sweep) {
                try (DirectoryStream<Path> old = Files.newDirectoryStream(bundles)) {
                    for (Path other : old) {
                        if (!other.equals(staged)) {
                            SafeTree.deleteTree(other);
                        }
                    }
                }
            }
            if (!Files.isRegularFile(staged.resolve("bin/start-executor"))) {
                Path partial = bundles.resolve(staged.getFileName() + ".partial");
                SafeTree.deleteTree(partial);
                run(List.of("cp", "-a", source.toString(), partial.toString()));
                // every user reads and runs it, nobody but its owner changes it
                run(List.of("chmod", "-R", "a+rX,go-w", partial.toString()));
                Files.move(partial, staged);
                LOG.info("Staged the executor bundle " + source + " as " + staged);
            }
            return staged;
        } catch (IOException e) {
            throw new IllegalStateException("cannot stage the executor bundle " + source + " under " + bundles + ": "
                    + e.getMessage(), e);
        }
    }

    static String digest(Path bundle) throws IOException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String file : FINGERPRINTED) {
                Path path = bundle.resolve(file);
                sha.update(file.getBytes(StandardCharsets.UTF_8));
                if (Files.isRegularFile(path)) {
                    sha.update(Files.readAllBytes(path));
                }
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void run(List<String> command) throws IOException {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + output.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
