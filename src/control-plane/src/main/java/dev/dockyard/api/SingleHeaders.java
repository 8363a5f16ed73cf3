package dev.dockyard.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.ext.Provider;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Refuses a request that gives a header meant once more than once: with two {@code Content-Type}
 * headers, which one the body reader honours and which one a proxy in front checked need not be
 * the same (RFC 9110 §5.3 lets a field be repeated only where its value is a list). A 400 before
 * anything else looks at the request, keys included.
 */
@Provider
@PreMatching
public class SingleHeaders implements ContainerRequestFilter {

    /**
     * The headers a request may carry at most once. Not Content-Length: Liberty's HTTP/2 side can
     * hand the application one sent length twice (see {@link BodyLimitFilter}), and its HTTP/1.1
     * channel judges the length itself.
     */
    static final List<String> SINGLE = List.of("Content-Type");

    /**
     * The servlet container's request: its header lists are as sent, while the JAX-RS runtime's map
     * holds one Content-Type however many came (HostileInputIT: two reached the body reader unseen).
     */
    @Context
    HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        repeated(servletRequest != null ? asSent(servletRequest) : request.getHeaders())
                .ifPresent(name -> request.abortWith(Problem.of(Problem.Kind.BAD_REQUEST,
                        "The request has more than one " + name + " header").toResponse()));
    }

    /** The headers of {@link #SINGLE}, each with every value the client sent. */
    private static Map<String, List<String>> asSent(HttpServletRequest request) {
        Map<String, List<String>> headers = new HashMap<>();
        for (String name : SINGLE) {
            Enumeration<String> values = request.getHeaders(name);
            headers.put(name, values == null ? List.of() : Collections.list(values));
        }
        return headers;
    }

    /** The first header of {@link #SINGLE} given more than once, names compared without case. */
    static Optional<String> repeated(Map<String, List<String>> headers) {
        for (String single : SINGLE) {
            int count = 0;
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                if (header.getKey() != null && header.getKey().equalsIgnoreCase(single) && header.getValue() != null) {
                    count += header.getValue().size();
                }
            }
            if (count > 1) {
                return Optional.of(single);
            }
        }
        return Optional.empty();
    }
}
