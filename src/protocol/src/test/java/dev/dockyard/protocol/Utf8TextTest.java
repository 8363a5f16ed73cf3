package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link Utf8Text}: the same text whichever form it is held in. */
class Utf8TextTest {

    private static Utf8Text bytes(String text) throws MalformedInputException {
        byte[] utf8 = ("[" + text + "]").getBytes(StandardCharsets.UTF_8);
        return Utf8Text.decode(utf8, 1, utf8.length - 2);
    }

    @Test
    void shouldBeTheSameTextAsBytesAndAsAString() throws Exception {
        for (String text : new String[] {"", "a", "é€😀中文", "line\r\nnext\n", "\"quoted\" \\ \u0000"}) {
            Utf8Text held = bytes(text);
            assertEquals(text, held.toString());
            assertEquals(Utf8Text.of(text), held);
            assertEquals(held, Utf8Text.of(text));
            assertEquals(bytes(text), held);
            assertEquals(Utf8Text.of(text).hashCode(), held.hashCode());
            assertEquals(text.isEmpty(), held.isEmpty());
            assertEquals(text.indexOf('\r') >= 0, held.contains('\r'));
            assertEquals(text.indexOf('\r') >= 0, Utf8Text.of(text).contains('\r'));
            ByteArrayOutputStream written = new ByteArrayOutputStream();
            held.writeTo(written);
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), written.toByteArray());
        }
        assertNotEquals(bytes("a"), bytes("b"));
        assertNotEquals(Utf8Text.of("a"), bytes("ab"));
    }

    @Test
    void shouldRefuseMalformedUtf8() {
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xE9};
        assertThrows(MalformedInputException.class, () -> Utf8Text.decode(latin1, 0, latin1.length));
        byte[] surrogate = {(byte) 0xED, (byte) 0xA0, (byte) 0x80};
        assertThrows(MalformedInputException.class, () -> Utf8Text.decode(surrogate, 0, surrogate.length));
        assertThrows(IndexOutOfBoundsException.class, () -> Utf8Text.decode(latin1, 2, 3));
    }

    @Test
    void shouldWriteAStringAsUtf8() throws Exception {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        Utf8Text.of("é\n").writeTo(written);
        assertArrayEquals("é\n".getBytes(StandardCharsets.UTF_8), written.toByteArray());
        assertTrue(Utf8Text.EMPTY.isEmpty());
        assertFalse(bytes("x").isEmpty());
    }
}
