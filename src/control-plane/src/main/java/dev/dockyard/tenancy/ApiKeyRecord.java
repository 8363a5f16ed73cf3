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
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "dy_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static String hash(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }

    public String userId() {
        return userId;
    }
}
