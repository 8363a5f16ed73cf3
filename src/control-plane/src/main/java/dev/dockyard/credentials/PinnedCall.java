package dev.dockyard.credentials;

import dev.dockyard.http.ResponseHead;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 POST to a token endpoint, on a connection to the address the
 * {@link TokenEndpointPolicy} judged, not to whatever the name resolves to a moment later. Java's
 * HTTP client resolves the name itself when it connects and has no way to be handed an address, so
 * the exchange is written here: the socket connects to the checked address, and TLS is given the
 * URL's host name for SNI and for checking the certificate, as the request's Host header is. The
 * call is bounded as a whole (a deadline every read checks) and its answer in size.
 */
final class PinnedCall {

    /** The endpoint's answer: its status and body. */
    record Answer(int status, byte[] body) {
    }

    /** The answer was larger than the limit. */
    static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        TooLargeException() {
            super("answer too large");
        }
    }

    private static final int MAX_HEAD = 16 * 1024;

    private PinnedCall() {
    }

    static Answer post(TokenEndpointPolicy.Endpoint endpoint, Map<String, String> headers, byte[] body,
                       int connectMillis, long deadlineNanos, int maxBytes) throws IOException {
        URI uri = endpoint.uri();
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() >= 0 ? uri.getPort() : https ? 443 : 80;
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1)
                : uri.getHost();
        Socket plain = new Socket();
        try (Socket socket = https ? tls(plain, endpoint, host, port, connectMillis, deadlineNanos)
                : connect(plain, endpoint, port, connectMillis)) {
            OutputStream out = socket.getOutputStream();
            out.write(head(uri, port, https, headers, body.length));
            out.write(body);
            out.flush();
            return read(new BufferedInputStream(new DeadlineInputStream(socket, deadlineNanos)), maxBytes);
        } finally {
            plain.close();
        }
    }

    private static Socket connect(Socket socket, TokenEndpointPolicy.Endpoint endpoint, int port, int connectMillis)
            throws IOException {
        socket.connect(new InetSocketAddress(endpoint.address(), port), connectMillis);
        return socket;
    }

    private static Socket tls(Socket plain, TokenEndpointPolicy.Endpoint endpoint, String host, int port,
                              int connectMillis, long deadlineNanos) throws IOException {
        connect(plain, endpoint, port, connectMillis);
        SSLSocket tls;
        try {
            // layered on the pinned connection; the host name given here is the one SNI names
            tls = (SSLSocket) SSLContext.getDefault().getSocketFactory().createSocket(plain, host, port, true);
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("no TLS", e);
        }
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
        tls.setSSLParameters(parameters);
        tls.setSoTimeout(remainingMillis(deadlineNanos));
        tls.startHandshake();
        return tls;
    }

    private static byte[] head(URI uri, int port, boolean https, Map<String, String> headers, int length) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String target = path + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        boolean defaultPort = port == (https ? 443 : 80);
        StringBuilder head = new StringBuilder("POST ").append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(uri.getHost()).append(defaultPort ? "" : ":" + port).append("\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(length).append("\r\nConnection: close\r\n\r\n");
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Answer read(InputStream in, int maxBytes) throws IOException {
        ResponseHead head = ResponseHead.read(in, MAX_HEAD);
        if (head.contentLength().orElse(0L) > maxBytes) {
            throw new TooLargeException();
        }
        // the request asked to close: an answer with neither a length nor chunks ends with the connection
        try (InputStream body = head.body(in, true)) {
            byte[] bytes = body.readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw new TooLargeException();
            }
            return new Answer(head.status(), bytes);
        }
    }

    private static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("the call's time is up");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** The socket's input, each read bounded by what is left of the call's time. */
    private static final class DeadlineInputStream extends InputStream {
        private final Socket socket;
        private final InputStream in;
        private final long deadlineNanos;

        DeadlineInputStream(Socket socket, long deadlineNanos) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.deadlineNanos = deadlineNanos;
        }

        @Override
        public int read() throws IOException {
            socket.setSoTimeout(remainingMillis(deadlineNanos));
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            socket.setSoTimeout(remainingMillis(deadlineNanos));
            return in.read(b, off, len);
        }
    }
}
