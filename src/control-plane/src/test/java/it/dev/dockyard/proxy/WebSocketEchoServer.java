package it.dev.dockyard.proxy;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A WebSocket service written by hand (RFC 6455), on 127.0.0.1: it answers the handshake, sends
 * {@code hello} in the same write as its 101 (so the proxy must pass on bytes that arrive with the
 * response head), echoes text messages (fragmented or not) as {@code echo: <text>}, drops the
 * connection without a word on {@code drop}, answers pings and closes. A request
 * for {@code .../refuse} gets a 403 with a body instead. It remembers the last handshake's path and
 * session key header.
 */
final class WebSocketEchoServer implements AutoCloseable {

    /** RFC 6455 §1.3 (the one magic string every WebSocket server appends to the client's key). */
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final ServerSocket server;
    volatile String lastPath;
    volatile String lastKey;

    WebSocketEchoServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "ws-echo-accept");
        accept.setDaemon(true);
        accept.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread t = new Thread(() -> serve(socket), "ws-echo");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            String requestLine = line(in);
            Map<String, String> headers = new HashMap<>();
            for (String l = line(in); !l.isEmpty(); l = line(in)) {
                int colon = l.indexOf(':');
                headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
            }
            lastPath = requestLine.split(" ")[1];
            lastKey = headers.get("x-session-api-key");
            if (lastPath.contains("/refuse")) {
                byte[] body = "no websocket here".getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: " + body.length
                        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
                return;
            }
            String accept = Base64.getEncoder().encodeToString(sha1(headers.get("sec-websocket-key") + GUID));
            ByteArrayOutputStream first = new ByteArrayOutputStream();
            first.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            first.write(frame(0x1, "hello".getBytes(StandardCharsets.UTF_8)));
            out.write(first.toByteArray());
            out.flush();
            ByteArrayOutputStream message = new ByteArrayOutputStream(); // a text message's fragments so far
            while (true) {
                int b0 = in.readUnsignedByte();
                int b1 = in.readUnsignedByte();
                boolean fin = (b0 & 0x80) != 0;
                int opcode = b0 & 0x0f;
                long length = b1 & 0x7f;
                if (length == 126) {
                    length = in.readUnsignedShort();
                } else if (length == 127) {
                    length = in.readLong();
                }
                byte[] mask = new byte[4];
                if ((b1 & 0x80) != 0) {
                    in.readFully(mask);
                }
                byte[] payload = new byte[(int) length];
                in.readFully(payload);
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i % 4];
                }
                if (opcode == 0x1 || opcode == 0x0) {
                    message.writeBytes(payload);
                    if (fin && message.toString(StandardCharsets.UTF_8).equals("drop")) {
                        return; // the service goes away without a close frame
                    }
                    if (fin) {
                        out.write(frame(0x1, ("echo: " + message.toString(StandardCharsets.UTF_8))
                                .getBytes(StandardCharsets.UTF_8)));
                        message.reset();
                    }
                } else if (opcode == 0x9) {
                    out.write(frame(0xA, payload));
                } else if (opcode == 0x8) {
                    out.write(frame(0x8, payload));
                    out.flush();
                    return;
                }
                out.flush();
            }
        } catch (EOFException e) {
            // the client went away
        } catch (IOException e) {
            // the connection broke: this service only echoes
        }
    }

    private static byte[] frame(int opcode, byte[] payload) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0x80 | opcode);
        if (payload.length < 126) {
            f.write(payload.length);
        } else {
            f.write(126);
            f.write(payload.length >>> 8);
            f.write(payload.length & 0xff);
        }
        f.writeBytes(payload);
        return f.toByteArray();
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException();
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] sha1(String s) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.ISO_8859_1));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
