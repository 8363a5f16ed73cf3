package dev.dockyard.runtime;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Identifiers and secrets for new runtimes: ids are short and safe in container names and URLs;
 * session keys carry 192 random bits (sealed, they still fit the key column).
 */
public final class RuntimeKeys {

    private static final SecureRandom RANDOM = new SecureRandom();

    private RuntimeKeys() {
    }

    /** "rt-" and 16 hex digits. */
    public static String newRuntimeId() {
        return "rt-" + HexFormat.of().formatHex(randomBytes(8));
    }

    /** The executor's secret: 24 random bytes, URL-safe base64 without padding. */
    public static String newSessionKey() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes(24));
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
