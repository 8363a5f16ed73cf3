package dev.dockyard.proxy;

import dev.dockyard.http.Header;
import dev.dockyard.http.ResponseHead;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The HTTP/1.1 exchange that opens a tunnel, written and read by hand on a plain socket: Java's
 * HTTP client cannot hand over the connection after a 101, and a WebSocket client library would
 * decode and re-encode every frame, where the proxy only has to pass bytes. So the proxy writes the
 * client's upgrade request (headers rewritten like any request's) and reads the service's answer
 * head; after a 101 the socket carries the new protocol, anything else is an ordinary response.
 */
final class UpgradeHandshake {

    /** A response head bigger than this is no answer the proxy relays. */
    static final int MAX_HEAD = 64 * 1024;

    private UpgradeHandshake() {
    }

    /** The request head: request line, Host (the service's address) and the forwarded headers. */
    static byte[] requestHead(String method, String pathAndQuery, String hostAndPort, List<Header> headers) {
        StringBuilder head = new StringBuilder();
        head.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(hostAndPort).append("\r\n");
        for (Header h : headers) {
            head.append(h.name()).append(": ").append(h.value()).append("\r\n");
        }
        head.append("\r\n");
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Reads the service's answer head, leaving {@code in} at the first byte after it. */
    static ResponseHead readHead(InputStream in) throws IOException {
        return ResponseHead.read(in, MAX_HEAD);
    }

    /** The body that follows a (non-101) answer head, framed as the head says. */
    static InputStream body(ResponseHead head, InputStream in) throws IOException {
        return head.body(in, false);
    }
}
