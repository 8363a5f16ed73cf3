package dev.dockyard.transport;

import java.nio.charset.StandardCharsets;

/**
 * An RFC 9457 problem for a request refused before any application saw it. Its {@code type} URIs
 * and titles are the control plane's own ({@code dev.dockyard.api.Problem.Kind}: the same base
 * and, where a kind exists, the same slug and title), so a client cannot tell which layer refused;
 * only {@code http-version-not-supported} is new, the application never answers 505.
 *
 * <p>The detail names the problem and never echoes the request: its bytes are what was wrong.
 */
public record TransportProblem(int status, String slug, String title, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";
    static final String TYPE_BASE = "https://dockyard.dev/problems/";

    /** A path the web container would refuse (400), with what is wrong with it. */
    public static TransportProblem badPath(String detail) {
        return new TransportProblem(400, "bad-request", "Malformed request", detail);
    }

    /** A request whose body framing is ambiguous (400), with what is wrong with it. */
    public static TransportProblem badFraming(String detail) {
        return new TransportProblem(400, "bad-request", "Malformed request", detail);
    }

    /** The problem for a status the HTTP channel sends on its own (the request's head did not parse or was too large). */
    public static TransportProblem forChannelStatus(int status) {
        return switch (status) {
            case 400 -> new TransportProblem(400, "bad-request", "Malformed request",
                    "The request line or a header is malformed, or over the server's limits (the size of a header"
                            + " field or of the request line, the number of header fields)");
            case 505 -> new TransportProblem(505, "http-version-not-supported", "HTTP version not supported",
                    "The request line does not end in HTTP/1.0 or HTTP/1.1 (a space in the request target has"
                            + " this effect)");
            case 408 -> new TransportProblem(408, "request-timeout", "The request was not received in time",
                    "The request's head or body did not arrive in time");
            case 411 -> new TransportProblem(411, "length-required", "Length required", refused(status));
            case 413 -> new TransportProblem(413, "payload-too-large", "The request body is too large", refused(status));
            case 414 -> new TransportProblem(414, "uri-too-long", "The request URI is too long", refused(status));
            case 431 -> new TransportProblem(431, "headers-too-large", "The request's headers are too large",
                    refused(status));
            case 501 -> new TransportProblem(501, "not-implemented", "Not implemented", refused(status));
            case 503 -> new TransportProblem(503, "service-unavailable", "The control plane is not available",
                    refused(status));
            default -> status >= 400 && status < 500
                    ? new TransportProblem(status, "bad-request", "Malformed request", refused(status))
                    : new TransportProblem(status, "internal", "Internal error", refused(status));
        };
    }

    private static String refused(int status) {
        return "The server's HTTP transport refused the request (" + status + ") before it reached the control plane";
    }

    public String type() {
        return TYPE_BASE + slug;
    }

    /** The problem document: {@code type}, {@code title}, {@code status} (a number), {@code detail}. */
    public String json() {
        return "{\"type\":" + quote(type()) + ",\"title\":" + quote(title) + ",\"status\":" + status
                + ",\"detail\":" + quote(detail) + "}";
    }

    public byte[] jsonBytes() {
        return json().getBytes(StandardCharsets.UTF_8);
    }

    /** A JSON string; every text here is a constant of this class, quoted properly all the same. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
