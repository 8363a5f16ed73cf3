package dev.dockyard.executor.http;

import com.sun.net.httpserver.HttpExchange;
import dev.dockyard.executor.Reply;
import dev.dockyard.executor.envd.EnvdRequests;
import java.util.Map;

/**
 * E2B's envd routes on the JDK server, beside PROTOCOL.md's (no path is shared): the RPCs
 * {@code POST /process.Process/*} and {@code POST /filesystem.Filesystem/*}, {@code GET /health}
 * and {@code GET}/{@code POST /files}. Only routing: {@link EnvdRequests} answers.
 */
final class EnvdRoutes {

    private EnvdRoutes() {
    }

    /** Whether {@code path} (no leading slash) is one of envd's. */
    static boolean isKnown(String path) {
        return EnvdRequests.isRpc(path) || path.equals("health") || path.equals("files");
    }

    /** The answer to an envd request, or null when {@code method} and {@code path} are not envd's. */
    static Reply route(EnvdRequests envd, HttpExchange exchange, String method, String path,
                       Map<String, String> query) {
        if (method.equals("POST") && EnvdRequests.isRpc(path)) {
            return envd.rpc(path, exchange.getRequestHeaders()::getFirst, exchange.getRequestBody());
        }
        return switch (method + " " + path) {
            case "GET health" -> envd.health();
            case "GET files" -> envd.download(query.get("path"), query.get("username"));
            case "POST files" -> envd.upload(exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Content-Encoding"), exchange.getRequestHeaders(),
                    exchange.getRequestBody(),
                    query.get("path"), query.get("username"));
            default -> null;
        };
    }
}
