package dev.dockyard.runtimeapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * The {@code context} part of OpenHands' {@code /build}: base64 text of a tar.gz, decoded as it
 * streams in to a temporary file (never whole in memory), up to a bound.
 */
final class BuildContextUpload {

    static final long MAX_BYTES = 1L << 30;

    private BuildContextUpload() {
    }

    static Path decode(InputStream base64) throws IOException {
        Path file = Files.createTempFile("dockyard-context-", ".tar.gz");
        try (InputStream in = Base64.getMimeDecoder().wrap(base64); OutputStream out = Files.newOutputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            long total = 0;
            for (int n; (n = in.read(buffer)) > 0; ) {
                total += n;
                if (total > MAX_BYTES) {
                    throw new IOException("it is larger than " + MAX_BYTES + " bytes");
                }
                out.write(buffer, 0, n);
            }
            return file;
        } catch (IOException | IllegalArgumentException e) {
            delete(file);
            throw e instanceof IOException io ? io : new IOException("it is not base64", e);
        }
    }

    static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temporary file
            }
        }
    }
}
