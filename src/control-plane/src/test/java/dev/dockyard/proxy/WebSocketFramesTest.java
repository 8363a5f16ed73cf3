package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebSocketFramesTest {

    @Test
    void shouldFindFrameBoundariesWhateverThePiecesTheBytesComeIn() {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(frame(0x1, 5, false));       // short text
        stream.writeBytes(frame(0x2, 300, false));     // 16-bit length
        stream.writeBytes(frame(0x2, 70_000, false));  // 64-bit length
        stream.writeBytes(frame(0x9, 0, false));       // empty ping
        stream.writeBytes(frame(0x1, 10, true));       // masked
        byte[] bytes = stream.toByteArray();
        for (int piece : new int[] {1, 2, 3, 7, 100, 4096, bytes.length}) {
            WebSocketFrames frames = new WebSocketFrames();
            for (int i = 0; i < bytes.length; i += piece) {
                frames.consume(bytes, i, Math.min(piece, bytes.length - i));
            }
            assertTrue(frames.atBoundary(), "pieces of " + piece);
            assertFalse(frames.closeSeen());
        }
        WebSocketFrames partial = new WebSocketFrames();
        partial.consume(bytes, 0, 8); // the first frame and the start of the second's header
        assertFalse(partial.atBoundary());
        partial = new WebSocketFrames();
        partial.consume(bytes, 0, 7);
        assertTrue(partial.atBoundary());
    }

    @Test
    void shouldNoticeACloseFrame() {
        WebSocketFrames frames = new WebSocketFrames();
        byte[] close = WebSocketFrames.closeFrame(1000, "bye");
        frames.consume(close, 0, close.length);
        assertTrue(frames.closeSeen());
        assertTrue(frames.atBoundary());
    }

    @Test
    void shouldWriteACloseFrameAsAServerDoes() {
        assertArrayEquals(new byte[] {(byte) 0x88, 5, 0x03, (byte) 0xe9, 'b', 'y', 'e'},
                WebSocketFrames.closeFrame(WebSocketFrames.GOING_AWAY, "bye"));
        byte[] longReason = WebSocketFrames.closeFrame(1001, "x".repeat(500));
        assertTrue(longReason.length <= 2 + 125, "a control frame carries at most 125 bytes");
    }

    private static byte[] frame(int opcode, int length, boolean masked) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0x80 | opcode);
        int maskBit = masked ? 0x80 : 0;
        if (length < 126) {
            f.write(maskBit | length);
        } else if (length < 65_536) {
            f.write(maskBit | 126);
            f.write(length >>> 8);
            f.write(length & 0xff);
        } else {
            f.write(maskBit | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                f.write((int) ((long) length >>> shift) & 0xff);
            }
        }
        if (masked) {
            f.writeBytes(new byte[] {1, 2, 3, 4});
        }
        f.writeBytes("p".repeat(length).getBytes(StandardCharsets.US_ASCII));
        return f.toByteArray();
    }
}
