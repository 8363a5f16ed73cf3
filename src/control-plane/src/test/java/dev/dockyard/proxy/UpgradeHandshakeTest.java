package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.http.Header;
import dev.dockyard.http.ResponseHead;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class UpgradeHandshakeTest {

    @Test
    void shouldWriteTheRequestHead() {
        byte[] head = UpgradeHandshake.requestHead("GET", "/socket?x=1", "127.0.0.1:9000",
                List.of(new Header("Upgrade", "websocket"), new Header("Connection", "Upgrade")));
        assertEquals("GET /socket?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
                new String(head, StandardCharsets.ISO_8859_1));
    }

    @Test
    void shouldReadTheResponseHeadAndLeaveTheFirstFrameInTheStream() throws IOException {
        InputStream in = stream("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: abc=\r\n\r\n\u0081\u0005hello");
        ResponseHead head = UpgradeHandshake.readHead(in);
        assertEquals(101, head.status());
        assertEquals("Switching Protocols", head.reason());
        assertEquals("abc=", head.header("sec-websocket-accept").orElseThrow());
        assertArrayEquals(bytes("\u0081\u0005hello"), in.readAllBytes());
    }

    @Test
    void shouldRefuseWhatIsNoResponseHead() {
        assertThrows(EOFException.class, () -> UpgradeHandshake.readHead(stream("HTTP/1.1 101 OK\r\nUpgrade: x\r\n")));
        assertThrows(IOException.class, () -> UpgradeHandshake.readHead(stream("SSH-2.0-OpenSSH\r\n\r\n")));
        assertThrows(IOException.class, () -> UpgradeHandshake.readHead(stream("HTTP/1.1 abc\r\n\r\n")));
        assertThrows(IOException.class, () -> UpgradeHandshake.readHead(stream("HTTP/1.1 200 OK\r\nX: "
                + "y".repeat(UpgradeHandshake.MAX_HEAD) + "\r\n\r\n")));
    }

    @Test
    void shouldReadTheBodyOfARefusalAsItIsFramed() throws IOException {
        assertEquals("no", body("HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nnoMORE"));
        assertEquals("hello world", body("HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nMORE"));
        assertEquals("until the end", body("HTTP/1.0 400 Bad\r\n\r\nuntil the end"));
        assertEquals("until the end", body("HTTP/1.1 400 Bad\r\nConnection: close\r\n\r\nuntil the end"));
        assertEquals("", body("HTTP/1.1 400 Bad\r\n\r\nkept alive, no framing: no body"));
        assertEquals("", body("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello"));
        assertThrows(EOFException.class, () -> body("HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"));
    }

    private static String body(String response) throws IOException {
        InputStream in = stream(response);
        return new String(UpgradeHandshake.body(UpgradeHandshake.readHead(in), in).readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    private static InputStream stream(String s) {
        return new ByteArrayInputStream(bytes(s));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
