package dev.dockyard.proxy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Follows the frames (RFC 6455 §5.2) a WebSocket service sends through a tunnel without touching
 * them: where one ends and whether a close frame went by. When the service goes away without a
 * close frame, the proxy can then end the session properly itself, at a frame boundary, with a
 * close frame of its own. That matters on Liberty: closing an upgraded connection does not close
 * the client's socket (the HTTP channel keeps it for a next request until its persist timeout), so
 * without a close frame a client would notice only that much later.
 */
final class WebSocketFrames {

    /** RFC 6455 §7.4.1: the endpoint is going away (a server going down, a browser leaving a page). */
    static final int GOING_AWAY = 1001;

    private int headerBytes;      // how much of the current frame's header has been seen
    private int headerLength = 2; // how long that header is, once its second byte is known
    private long payloadLeft;
    private int opcode;
    private int lengthCode;
    private long extendedLength;
    private boolean closeSeen;

    /** Follows these bytes, the next ones the service sent. */
    void consume(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            if (headerBytes < headerLength) {
                header(bytes[i++] & 0xff);
            } else {
                long skip = Math.min(payloadLeft, end - i);
                payloadLeft -= skip;
                i += (int) skip;
                if (payloadLeft == 0) {
                    headerBytes = 0;
                    headerLength = 2;
                }
            }
        }
    }

    private void header(int b) {
        int position = headerBytes++;
        if (position == 0) {
            opcode = b & 0x0f;
            if (opcode == 0x8) {
                closeSeen = true;
            }
        } else if (position == 1) {
            lengthCode = b & 0x7f;
            extendedLength = 0;
            headerLength = 2 + (lengthCode == 126 ? 2 : lengthCode == 127 ? 8 : 0) + ((b & 0x80) != 0 ? 4 : 0);
        } else if (position < 2 + (lengthCode == 126 ? 2 : lengthCode == 127 ? 8 : 0)) {
            extendedLength = (extendedLength << 8) | b;
        }
        if (headerBytes == headerLength) {
            payloadLeft = lengthCode < 126 ? lengthCode : extendedLength;
            if (payloadLeft == 0) {
                headerBytes = 0;
                headerLength = 2;
            }
        }
    }

    /** Whether everything seen so far is whole frames. */
    boolean atBoundary() {
        return headerBytes == 0;
    }

    /** Whether the service sent a close frame. */
    boolean closeSeen() {
        return closeSeen;
    }

    /** A close frame as a server sends it (unmasked), with a status code and a short reason. */
    static byte[] closeFrame(int code, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, 123); // control frames carry at most 125 bytes
        ByteArrayOutputStream frame = new ByteArrayOutputStream(4 + length);
        frame.write(0x88);
        frame.write(2 + length);
        frame.write(code >>> 8);
        frame.write(code & 0xff);
        frame.write(text, 0, length);
        return frame.toByteArray();
    }
}
