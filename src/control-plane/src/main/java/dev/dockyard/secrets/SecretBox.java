package dev.dockyard.secrets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Seals secrets (session keys, later provider credentials) with AES-256-GCM before they are
 * stored. The key is MP Config {@code dockyard.secrets.key} (base64 of 32 bytes, e.g. from the
 * environment as DOCKYARD_SECRETS_KEY); without one, a key is generated once into
 * {@code dockyard-secrets.key} (mode 600) in the server's working directory, which is its output
 * directory: good for a single machine, while production should inject the key from a secret store.
 */
public final class SecretBox {

    static final String PREFIX = "v1:";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static volatile SecretKeySpec key;

    private SecretBox() {
    }

    public static String seal(String plain) {
        return plain == null ? null : seal(plain, key());
    }

    public static String open(String stored) {
        return stored == null || !stored.startsWith(PREFIX) ? stored : open(stored, key());
    }

    static String seal(String plain, SecretKeySpec key) {
        try {
            byte[] iv = new byte[12];
            RANDOM.nextBytes(iv);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
            byte[] sealed = cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[iv.length + sealed.length];
            System.arraycopy(iv, 0, out, 0, iv.length);
            System.arraycopy(sealed, 0, out, iv.length, sealed.length);
            return PREFIX + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("sealing a secret failed", e);
        }
    }

    static String open(String stored, SecretKeySpec key) {
        try {
            byte[] in = Base64.getDecoder().decode(stored.substring(PREFIX.length()));
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, in, 0, 12));
            return new String(cipher.doFinal(in, 12, in.length - 12), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("a stored secret cannot be opened: wrong dockyard.secrets.key?", e);
        }
    }

    private static SecretKeySpec key() {
        SecretKeySpec k = key;
        if (k == null) {
            synchronized (SecretBox.class) {
                if (key == null) {
                    key = new SecretKeySpec(loadKey(), "AES");
                }
                k = key;
            }
        }
        return k;
    }

    private static byte[] loadKey() {
        Optional<String> configured = ConfigProvider.getConfig().getOptionalValue("dockyard.secrets.key", String.class)
                .filter(v -> !v.isBlank());
        if (configured.isPresent()) {
            return decode(configured.get());
        }
        return loadOrCreateKey(Path.of("dockyard-secrets.key").toAbsolutePath());
    }

    /**
     * The key in {@code file}, generated first when there is none. The file only ever appears
     * complete and with mode 600: the key is written to a temporary file created with that mode,
     * then linked under its name (a link never replaces a file, so of two servers starting at
     * once, the second reads the first one's key).
     */
    static byte[] loadOrCreateKey(Path file) {
        try {
            if (!Files.exists(file)) {
                byte[] fresh = new byte[32];
                RANDOM.nextBytes(fresh);
                Path temporary = Files.createTempFile(file.getParent(), ".dockyard-secrets", ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                try {
                    Files.writeString(temporary, Base64.getEncoder().encodeToString(fresh));
                    Files.createLink(file, temporary);
                } catch (FileAlreadyExistsException e) {
                    // another server made it first: use theirs
                } finally {
                    Files.deleteIfExists(temporary);
                }
            }
            return decode(Files.readString(file).strip());
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalStateException("no dockyard.secrets.key and no key file " + file + ": " + e, e);
        }
    }

    private static byte[] decode(String base64) {
        byte[] bytes = Base64.getDecoder().decode(base64.strip());
        if (bytes.length != 32) {
            throw new IllegalStateException("dockyard.secrets.key must be base64 of 32 bytes");
        }
        return bytes;
    }
}
