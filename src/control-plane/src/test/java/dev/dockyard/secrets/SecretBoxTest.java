package dev.dockyard.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

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
}
