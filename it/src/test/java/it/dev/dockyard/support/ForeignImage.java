package it.dev.dockyard.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A "foreign" sandbox image, built offline by the test: {@code dockyard/sandbox-base:bookworm} (python3, bash) plus
 * {@code /srv/server.py} (test resource {@code runtime-api/foreign/server.py}), with no Dockyard label, so that
 * {@code /start} runs the command it is given. No RUN step: the build needs no network.
 */
public final class ForeignImage {

    static final String BASE = "dockyard/sandbox-base:bookworm";
    static final String REPOSITORY = "dockyard/it-foreign";
    /** The command that serves the image's ports, as a list (exec'd directly). */
    public static final List<String> COMMAND = List.of("python3", "/srv/server.py");
    /** What {@code GET /big} answers: 10 MiB, byte i = (i * 31 + 7) % 251. */
    public static final int BIG_SIZE = 10 * 1024 * 1024;

    private ForeignImage() {
    }

    /** Builds {@code dockyard/it-foreign:<random>}; its tag. Remove it with {@link #remove}. */
    public static String build() {
        return build("foreign");
    }

    /**
     * Builds the image of test resource {@code runtime-api/<server>/server.py} ({@code foreign}: the
     * services of the proxy tests; {@code dormant}: a server of the deferred-init contract).
     */
    public static String build(String server) {
        String tag = REPOSITORY + ":" + server + "-" + UUID.randomUUID().toString().substring(0, 12);
        Path dir = null;
        try {
            dir = Files.createTempDirectory("it-foreign");
            String resource = "/runtime-api/" + server + "/server.py";
            try (InputStream source = ForeignImage.class.getResourceAsStream(resource)) {
                if (source == null) {
                    throw new AssertionError("test resource " + resource + " is missing");
                }
                Files.copy(source, dir.resolve("server.py"));
            }
            Files.writeString(dir.resolve("Dockerfile"), "FROM " + BASE + "\n"
                    + "COPY server.py /srv/server.py\n"
                    + "EXPOSE 60000 60001 12000 12001\n");
            DockerCli.ok("build", "-q", "--network", "none", "-t", tag, dir.toString());
            assertEquals("", DockerCli.inspect(tag, "{{index .Config.Labels \"dev.dockyard.runtime-image\"}}")
                    .replace("<no value>", ""), "a foreign image: no Dockyard runtime-image label");
            return tag;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** Removes the image (and fails if it is still there afterwards). */
    public static void remove(String tag) {
        if (tag == null) {
            return;
        }
        DockerCli.run("rmi", "-f", tag);
        assertEquals("", DockerCli.ok("images", "-q", tag), "image " + tag + " removed");
    }

    /** SHA-256 (hex) of what {@code GET /big} answers. */
    public static String bigSha256() {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] block = new byte[251 * 256];
            for (int i = 0; i < block.length; i++) {
                block[i] = (byte) ((i * 31 + 7) % 251);
            }
            // the pattern repeats every 251 bytes, and block.length is a multiple of 251
            for (int done = 0; done < BIG_SIZE; done += block.length) {
                digest.update(block, 0, Math.min(block.length, BIG_SIZE - done));
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
