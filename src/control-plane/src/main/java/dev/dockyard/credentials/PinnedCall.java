package dev.dockyard.credentials;

import dev.dockyard.http.ChunkedInputStream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
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
        String[] lines = readHead(in).split("\r\n");
        String[] status = lines[0].split(" ", 3);
        int code;
        try {
            code = status.length >= 2 && status[0].startsWith("HTTP/1.") ? Integer.parseInt(status[1]) : -1;
        } catch (NumberFormatException e) {
            code = -1;
        }
        if (code < 100 || code > 599) {
            throw new IOException("not an HTTP response");
        }
        String transferEncoding = null;
        long length = -1;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            String name = colon > 0 ? lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT) : "";
            String value = colon > 0 ? lines[i].substring(colon + 1).trim() : "";
            if (name.equals("transfer-encoding")) {
                transferEncoding = value.toLowerCase(Locale.ROOT);
            } else if (name.equals("content-length")) {
                try {
                    length = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length");
                }
            }
        }
        InputStream body;
        if (code < 200 || code == 204 || code == 304) {
            return new Answer(code, new byte[0]);
        } else if (transferEncoding != null) {
            if (!transferEncoding.equals("chunked")) {
                throw new IOException("unsupported Transfer-Encoding");
            }
            body = new ChunkedInputStream(in);
        } else if (length >= 0) {
            if (length > maxBytes) {
                throw new TooLargeException();
            }
            body = in;
        } else {
            body = in; // Connection: close was asked for: the body ends with the connection
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        long wanted = length >= 0 && transferEncoding == null ? length : Long.MAX_VALUE;
        int n;
        while (bytes.size() < wanted && (n = body.read(buffer, 0, (int) Math.min(buffer.length,
                wanted - bytes.size()))) >= 0) {
            bytes.write(buffer, 0, n);
            if (bytes.size() > maxBytes) {
                throw new TooLargeException();
            }
        }
        if (wanted != Long.MAX_VALUE && bytes.size() < wanted) {
            throw new EOFException("answer cut short");
        }
        return new Answer(code, bytes.toByteArray());
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        int matched = 0; // how much of "\r\n\r\n" was just read
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the endpoint closed the connection before answering");
            }
            head.write(b);
            if (head.size() > MAX_HEAD) {
                throw new TooLargeException();
            }
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
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
