package dev.dockyard.tenancy;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;

/**
 * An API key, stored as its SHA-256 hash only: the key itself is shown once, when it is made.
 * Keys are 32 random bytes, so a plain (unsalted) hash is as good as a password hash here and
 * lets a key be found by its hash.
 */
@Entity
@Table(name = "DY_API_KEY")
public class ApiKeyRecord {

    private static final SecureRandom RANDOM = new SecureRandom();

    @Id
    @Column(name = "KEY_HASH", length = 64)
    private String keyHash;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    protected ApiKeyRecord() {
        // JPA
    }

    public ApiKeyRecord(String keyHash, String userId, Instant createdAt) {
        this.keyHash = keyHash;
        this.userId = userId;
        this.createdAt = createdAt;
    }

    public static String newKey() {
        return newKey(KeyKind.DOCKYARD);
    }

    /** A new key of 32 random bytes, written as {@code kind} writes it. */
    public static String newKey(KeyKind kind) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return switch (kind) {
            case DOCKYARD -> "dy_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            case E2B -> "e2b_" + HexFormat.of().formatHex(bytes);
        };
    }

    public static String hash(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }

    /** The SHA-256 hash it is stored and found by. */
    public String keyHash() {
        return keyHash;
    }

    public String userId() {
        return userId;
    }
}
