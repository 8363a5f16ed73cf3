package dev.dockyard.e2b;

import dev.dockyard.api.Problem;
import dev.dockyard.application.e2b.PageToken;
import dev.dockyard.application.e2b.SandboxQuery;
import dev.dockyard.application.e2b.SandboxState;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the query of E2B's sandbox lists. {@code metadata} comes percent-encoded three times (the SDK
 * encodes each key and value, joins the pairs as a query string, which is encoded again as the
 * parameter): JAX-RS undoes the outer one, this the other two, as E2B's server does. {@code state}
 * is a comma-separated list ({@code running,paused}, also repeated), {@code limit} 1 to 100 (default
 * 100), {@code order} {@code asc} or {@code desc} (default), {@code startedAfter} an RFC 3339 time,
 * {@code nextToken} what the previous page's {@code X-Next-Token} said. Anything malformed is a 400
 * naming the parameter.
 */
final class SandboxQueryReader {

    private SandboxQueryReader() {
    }

    static SandboxQuery read(String metadata, List<String> states, String template, String startedAfter,
                             String order, String limit, String nextToken) {
        boolean ascending = switch (order == null || order.isEmpty() ? "desc" : order) {
            case "asc" -> true;
            case "desc" -> false;
            default -> throw invalid("order must be asc or desc");
        };
        PageToken after = nextToken == null || nextToken.isEmpty() ? null : PageToken.decode(nextToken)
                .orElseThrow(() -> invalid("nextToken is not a token this list handed out"));
        return new SandboxQuery(metadata(metadata), states(states), template == null || template.isEmpty() ? null
                : template, startedAfter(startedAfter), ascending, limit(limit), after);
    }

    /** The metadata filter of its parameter as JAX-RS decoded it once: {@code k%2520y=v%2526w} is {@code k y} = {@code v&w}. */
    static Map<String, String> metadata(String parameter) {
        Map<String, String> pairs = new LinkedHashMap<>();
        if (parameter == null || parameter.isEmpty()) {
            return pairs;
        }
        try {
            for (String pair : decode(parameter).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int equals = pair.indexOf('=');
                if (equals <= 0) {
                    throw invalid("metadata must be key=value pairs joined by & (each part percent-encoded)");
                }
                pairs.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
            }
        } catch (IllegalArgumentException e) {
            throw invalid("metadata is not percent-encoded as E2B's SDKs send it");
        }
        return pairs;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    static Set<SandboxState> states(List<String> parameters) {
        Set<SandboxState> states = EnumSet.noneOf(SandboxState.class);
        for (String parameter : parameters == null ? List.<String>of() : parameters) {
            for (String word : parameter.split(",")) {
                if (!word.isBlank()) {
                    states.add(SandboxState.named(word.strip())
                            .orElseThrow(() -> invalid("state must be running or paused, not '" + word.strip() + "'")));
                }
            }
        }
        return states;
    }

    static int limit(String parameter) {
        if (parameter == null || parameter.isEmpty()) {
            return SandboxQuery.MAX_LIMIT;
        }
        try {
            int limit = Integer.parseInt(parameter);
            if (limit >= 1 && limit <= SandboxQuery.MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw invalid("limit must be an integer from 1 to " + SandboxQuery.MAX_LIMIT);
    }

    private static Instant startedAfter(String parameter) {
        if (parameter == null || parameter.isEmpty()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(parameter).toInstant();
        } catch (DateTimeParseException e) {
            throw invalid("startedAfter must be an RFC 3339 time, e.g. 2026-01-01T00:00:00Z");
        }
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
