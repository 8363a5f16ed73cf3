package dev.dockyard.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import java.util.List;
import java.util.Map;

/**
 * Every id in a path ({@code /runtimes/{id}}, {@code /pools/{name}}, {@code /users/{userId}},
 * {@code /sessions/{sessionId}}, ...) is checked against {@link SafeIds} once, here, after the
 * caller is known and before any resource looks it up: a {@code ../}, a bidi control or a
 * replaced invalid UTF-8 byte is a 400 naming the parameter, never a lookup, a label or a log line.
 * Credential names are variable names, a subset of the alphabet.
 */
@Provider
@Priority(Priorities.AUTHORIZATION)
public class SafePathIds implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        for (Map.Entry<String, List<String>> parameter : request.getUriInfo().getPathParameters(true).entrySet()) {
            for (String value : parameter.getValue()) {
                if (!SafeIds.isSafe(value)) {
                    request.abortWith(Problem.of(Problem.Kind.VALIDATION, "The path's " + parameter.getKey()
                            + " must be an id of " + SafeIds.ALPHABET + " characters").toResponse());
                    return;
                }
            }
        }
    }
}
