package dev.dockyard.executor.api;

import dev.dockyard.executor.ExecutorRequests;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * {@code X-Session-API-Key} on every path but {@code /alive} and {@code /server_info}: wrong or
 * missing key is 403 {@code {"detail": "Invalid API Key"}}. Compared in constant time; never logged.
 */
@PreMatching
public class SessionKeyFilter implements ContainerRequestFilter {

    public static final String HEADER = ExecutorRequests.SESSION_HEADER;

    private final ExecutorLifecycle lifecycle;

    SessionKeyFilter(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!lifecycle.requests().authorised(request.getUriInfo().getPath(), request.getHeaderString(HEADER))) {
            request.abortWith(Replies.of(ExecutorRequests.forbidden()));
        }
    }
}
