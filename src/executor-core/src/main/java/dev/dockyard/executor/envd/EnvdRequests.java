package dev.dockyard.executor.envd;

import dev.dockyard.executor.Reply;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * envd's routes as the HTTP faces call them (the JDK server's router and the WAR's JAX-RS
 * resource): each hands over the path, the headers, the query parameters and the body, and writes
 * back the {@link Reply}. Until the executor has started, every route answers 503 in envd's own
 * error shape (a Connect {@code unavailable}, or {@code {"code": 503, ...}} on the REST routes).
 */
public final class EnvdRequests {

    private final Supplier<Envd> envd;

    /** @param envd the started executor's envd, or null while the executor starts */
    public EnvdRequests(Supplier<Envd> envd) {
        this.envd = envd;
    }

    /** Whether {@code path} (without its leading slash) is one of envd's RPCs ({@code POST} only). */
    public static boolean isRpc(String path) {
        return Envd.isRpc(path);
    }

    /** {@code POST /<service>/<method>}; {@code header} reads a request header by name, any case. */
    public Reply rpc(String path, Function<String, String> header, InputStream body) {
        Envd served = envd.get();
        if (served == null) {
            ConnectError error = new ConnectError("unavailable", "the executor is not initialized");
            return Envd.isStream(path) ? ConnectWire.streamError(error) : ConnectWire.unaryError(error);
        }
        return served.rpc(path, header, body);
    }

    /** {@code GET /health}: 204 once the executor serves. */
    public Reply health() {
        return envd.get() == null ? notInitialized() : Reply.noContent(Map.of());
    }

    /** {@code GET /files?path=&username=}. */
    public Reply download(String path, String username) {
        Envd served = envd.get();
        return served == null ? notInitialized() : served.download(path, username);
    }

    /** {@code POST /files?path=&username=}; {@code headers} all the request's (the metadata is in some). */
    public Reply upload(String contentType, String contentEncoding, Map<String, List<String>> headers,
                        InputStream body, String path, String username) {
        Envd served = envd.get();
        return served == null ? notInitialized()
                : served.upload(contentType, contentEncoding, headers, body, path, username);
    }

    private static Reply notInitialized() {
        return EnvdFiles.error(503, "the executor is not initialized");
    }
}
