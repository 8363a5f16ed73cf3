package dev.dockyard.executor.api;

import jakarta.json.Json;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * {@code X-Session-API-Key} on every path but {@code /alive} and {@code /server_info}: wrong or
 * missing key is 403 {@code {"detail": "Invalid API Key"}}. Compared in constant time; never logged.
 */
@PreMatching
public class SessionKeyFilter implements ContainerRequestFilter {

    public static final String HEADER = "X-Session-API-Key";
    private static final Set<String> OPEN_PATHS = Set.of("alive", "server_info");

    private final ExecutorLifecycle lifecycle;

    SessionKeyFilter(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        path = path.startsWith("/") ? path.substring(1) : path;
        if (OPEN_PATHS.contains(path)) {
            return;
        }
        byte[] expected = lifecycle.sessionKey();
        String given = request.getHeaderString(HEADER);
        if (expected == null || given == null
                || !MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
            request.abortWith(Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(Json.createObjectBuilder().add("detail", "Invalid API Key").build()).build());
        }
    }
}
