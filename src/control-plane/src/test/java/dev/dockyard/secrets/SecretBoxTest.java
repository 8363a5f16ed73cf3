package dev.dockyard.secrets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretBoxTest {

    private static final SecretKeySpec KEY = new SecretKeySpec(new byte[32], "AES");
    private static final SecretKeySpec OTHER = new SecretKeySpec(new byte[] {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
        31, 32}, "AES");

    @Test
    void shouldSealSoTheSecretIsNotInTheStoredText() {
        String secret = "sk-canary-0123456789abcdef";
        String sealed = SecretBox.seal(secret, KEY);
        assertTrue(sealed.startsWith("v1:"));
        assertFalse(sealed.contains(secret));
        assertFalse(sealed.contains("canary"));
        assertEquals(secret, SecretBox.open(sealed, KEY));
    }

    @Test
    void shouldUseAFreshNonceEveryTime() {
        assertNotEquals(SecretBox.seal("same", KEY), SecretBox.seal("same", KEY));
    }

    @Test
    void shouldRefuseAWrongKeyOrATamperedValue() {
        String sealed = SecretBox.seal("secret", KEY);
        assertThrows(IllegalStateException.class, () -> SecretBox.open(sealed, OTHER));
        String tampered = sealed.substring(0, sealed.length() - 4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA");
        assertThrows(IllegalStateException.class, () -> SecretBox.open(tampered, KEY));
    }

    @Test
    void shouldCreateTheKeyFileWithOwnerOnlyModeAndNeverShowItOtherwise(@TempDir Path dir) throws Exception {
        AtomicBoolean creating = new AtomicBoolean(true);
        List<String> seen = new CopyOnWriteArrayList<>();
        Thread watcher = new Thread(() -> {
            while (creating.get()) {
                try (Stream<Path> files = Files.list(dir)) {
                    files.forEach(f -> {
                        try {
                            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(f));
                            if (!mode.equals("rw-------")) {
                                seen.add(f.getFileName() + " " + mode);
                            }
                        } catch (IOException gone) {
                            // removed between listing and reading: nothing seen
                        }
                    });
                } catch (IOException | UncheckedIOException e) {
                    // a file vanished during the listing
                }
            }
        });
        watcher.start();
        try {
            for (int i = 0; i < 200; i++) {
                Path file = dir.resolve("key-" + i);
                byte[] key = SecretBox.loadOrCreateKey(file);
                assertEquals(32, key.length);
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            }
        } finally {
            creating.set(false);
            watcher.join();
        }
        assertEquals(List.of(), seen, "a key file was visible with a wider mode");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(200, files.count(), "no temporary file is left behind");
        }
    }

    @Test
    void shouldHandTwoServersStartingAtOnceTheSameKey(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dockyard-secrets.key");
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                Path shared = dir.resolve("round-" + round + ".key");
                CountDownLatch start = new CountDownLatch(1);
                Future<byte[]> a = two.submit(() -> {
                    start.await();
                    return SecretBox.loadOrCreateKey(shared);
                });
                Future<byte[]> b = two.submit(() -> {
                    start.await();
                    return SecretBox.loadOrCreateKey(shared);
                });
                start.countDown();
                assertArrayEquals(a.get(), b.get());
            }
        } finally {
            two.shutdownNow();
        }
        assertArrayEquals(SecretBox.loadOrCreateKey(file), SecretBox.loadOrCreateKey(file));
    }
}
