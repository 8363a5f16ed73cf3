package dev.dockyard.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Heads and bodies as the proxy's handshakes and the pinned credential calls read them. */
class ResponseHeadTest {

    @Test
    void shouldReadStatusReasonAndHeadersInAnyCase() throws IOException {
        ResponseHead head = ResponseHead.read(stream("HTTP/1.1 404 Not Found\r\ncontent-length: 3\r\nX-A: 1\r\n\r\nabc"), 1024);
        assertEquals(404, head.status());
        assertEquals("Not Found", head.reason());
        assertEquals(Optional.of("1"), head.header("x-a"));
        assertEquals(Optional.of(3L), head.contentLength());
        assertFalse(head.closes());
    }

    @Test
    void shouldRefuseWhatIsNoHttpOneAnswerOrTooLong() {
        assertThrows(IOException.class, () -> ResponseHead.read(stream("HTTP/2 200\r\n\r\n"), 1024));
        assertThrows(IOException.class, () -> ResponseHead.read(stream("HTTP/1.1 999 Odd\r\n\r\n"), 1024));
        assertThrows(IOException.class, () -> ResponseHead.read(stream("HTTP/1.1 200 OK\r\nX: " + "y".repeat(100) + "\r\n\r\n"), 64));
        assertThrows(EOFException.class, () -> ResponseHead.read(stream("HTTP/1.1 200 OK\r\n"), 1024));
    }

    @Test
    void shouldEndABodyWithoutFramingWithTheConnectionOnlyWhenItCloses() throws IOException {
        assertEquals("", body("HTTP/1.1 200 OK\r\n\r\nkept alive", false));
        assertEquals("to the end", body("HTTP/1.1 200 OK\r\n\r\nto the end", true), "the request asked to close");
        assertEquals("to the end", body("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end", false));
    }

    @Test
    void shouldRefuseBadLengthsUnknownCodingsAndBodiesCutShort() {
        assertThrows(IOException.class, () -> body("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", true));
        assertThrows(IOException.class, () -> body("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", true));
        assertThrows(IOException.class, () -> body("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz", true));
        assertThrows(EOFException.class, () -> body("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true));
    }

    @Test
    void shouldLetChunksOverrideALength() throws IOException {
        ResponseHead head = ResponseHead.read(stream("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n"), 1024);
        assertTrue(head.contentLength().isEmpty());
        assertEquals("hi", body("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", false));
    }

    private static String body(String response, boolean closeAsked) throws IOException {
        InputStream in = stream(response);
        return new String(ResponseHead.read(in, 1024).body(in, closeAsked).readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    private static InputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }
}
