package dev.dockyard.api;

/**
 * Query parameters read as text and checked here, so a bad one is a 400 naming it: JAX-RS itself
 * answers 404 when an {@code int} parameter does not parse, and takes {@code limit=-5} as given.
 */
public final class QueryParams {

    private QueryParams() {
    }

    /** {@code raw} as an integer in {@code [min, max]}, {@code fallback} when absent or empty. */
    public static int intInRange(String raw, String name, int fallback, int min, int max) {
        if (raw == null || raw.isEmpty()) {
            return fallback;
        }
        try {
            if (raw.length() <= 10) {
                int value = Integer.parseInt(raw);
                if (value >= min && value <= max) {
                    return value;
                }
            }
        } catch (NumberFormatException e) {
            // answered below, like an out-of-range number
        }
        throw Problem.of(Problem.Kind.VALIDATION, name + " must be an integer from " + min + " to " + max)
                .toException();
    }

    /** {@code raw} as {@code true} or {@code false}, {@code fallback} when absent or empty. */
    public static boolean bool(String raw, String name, boolean fallback) {
        if (raw == null || raw.isEmpty()) {
            return fallback;
        }
        if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(raw);
        }
        throw Problem.of(Problem.Kind.VALIDATION, name + " must be true or false").toException();
    }
}
