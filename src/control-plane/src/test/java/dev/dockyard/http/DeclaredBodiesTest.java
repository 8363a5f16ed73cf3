package dev.dockyard.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DeclaredBodiesTest {

    private static final byte[] BODY = new byte[100_000];

    static {
        Arrays.fill(BODY, (byte) 'x');
        BODY[BODY.length - 1] = 'y';
    }

    @Test
    void shouldReadTheAnnouncedLengthWhetherPresizedOrNot() throws IOException {
        assertArrayEquals(BODY, DeclaredBodies.read(new ByteArrayInputStream(BODY), BODY.length, BODY.length));
        assertArrayEquals(BODY, DeclaredBodies.read(new ByteArrayInputStream(BODY), BODY.length, 1024),
                "past the bound: read as it comes");
        assertEquals(0, DeclaredBodies.read(InputStream.nullInputStream(), 0, 1024).length);
    }

    @Test
    void shouldSayHowMuchCameOfABodyThatEndedShort() {
        byte[] some = Arrays.copyOf(BODY, 10);
        assertEquals("the body ended after 10 of its 100000 bytes", assertThrows(IOException.class,
                () -> DeclaredBodies.read(new ByteArrayInputStream(some), BODY.length, BODY.length)).getMessage());
        assertEquals("the body ended after 10 of its 100000 bytes", assertThrows(IOException.class,
                () -> DeclaredBodies.read(new ByteArrayInputStream(some), BODY.length, 1024)).getMessage());
    }
}
