package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Optional members of a request body, read with their default when absent or null and a 400
 * naming the field ({@code name}, e.g. {@code sandbox.cpus}) when of the wrong type; and the
 * schema check every body object goes through: {@link #requireOnly} against the one constant set
 * of member names its reader declares.
 */
public final class JsonFields {

    /** How far a misspelling may be from a known name to be offered as "did you mean". */
    private static final int SUGGESTION_DISTANCE = 2;

    /** What a sandbox's environment variable may be called ({@code sandbox.env}, E2B's {@code envVars}). */
    public static final Pattern VARIABLE_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");
    /** The largest sandbox environment as JSON: sealed, it must fit the runtime's SANDBOX_ENV column. */
    public static final int MAX_ENVIRONMENT_BYTES = 16_000;

    private JsonFields() {
    }

    /**
     * A 400 naming every member of {@code o} not in {@code allowed} ({@code where} is the object's
     * path, e.g. {@code sandbox}, or empty for the body itself), with the nearest known name for
     * each ({@code memoryMB} → {@code memoryMb}) and the whole list. Unknown members are refused
     * rather than ignored: a misspelt limit silently became its default.
     */
    public static void requireOnly(JsonObject o, Set<String> allowed, String where) {
        List<String> unknown = o.keySet().stream().filter(k -> !allowed.contains(k)).sorted().toList();
        if (unknown.isEmpty()) {
            return;
        }
        String prefix = where == null || where.isEmpty() ? "" : where + ".";
        JsonArrayBuilder names = Jsonp.createArrayBuilder();
        JsonObjectBuilder suggestions = Jsonp.createObjectBuilder();
        StringBuilder detail = new StringBuilder(unknown.size() == 1 ? "Unknown field " : "Unknown fields ");
        for (int i = 0; i < unknown.size(); i++) {
            String name = prefix + JsonBodyReader.printable(unknown.get(i));
            names.add(name);
            detail.append(i == 0 ? "" : ", ").append(name);
            String nearest = nearest(unknown.get(i), allowed);
            if (nearest != null) {
                suggestions.add(name, prefix + nearest);
                detail.append(" (did you mean ").append(prefix).append(nearest).append("?)");
            }
        }
        detail.append("; ").append(where == null || where.isEmpty() ? "the body" : where).append(" takes ")
                .append(new TreeSet<>(allowed));
        throw Problem.of(Problem.Kind.VALIDATION, detail.toString()).with("unknownFields", names.build())
                .with("suggestions", suggestions.build()).toException();
    }

    /** The known name that differs only in case, else the one within a small edit distance; null if none. */
    static String nearest(String name, Set<String> allowed) {
        String best = null;
        int bestDistance = SUGGESTION_DISTANCE + 1;
        for (String candidate : new TreeSet<>(allowed)) {
            if (candidate.equalsIgnoreCase(name)) {
                return candidate;
            }
            int d = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT), bestDistance);
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        return best;
    }

    /** Levenshtein distance, or {@code cap} once it is certain to reach it (names are short; cap bounds the work). */
    private static int distance(String a, String b, int cap) {
        if (Math.abs(a.length() - b.length()) >= cap || a.length() > 100) {
            return cap;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return Math.min(previous[b.length()], cap);
    }

    /** The member {@code key} as an object (empty when absent or null), else a 400 naming {@code name}. */
    public static JsonObject object(JsonObject o, String key, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        if (v.getValueType() != JsonValue.ValueType.OBJECT) {
            throw invalid(name + " must be an object");
        }
        return v.asJsonObject();
    }

    /**
     * The member {@code key} as an object of strings (empty when absent or null), else a 400 naming
     * {@code name}: each member's name must match {@code names} (null: any name) and its value be a
     * string, and the object at most {@code maxBytes} as JSON (UTF-8), what its column holds.
     */
    public static Map<String, String> strings(JsonObject o, String key, String name, Pattern names, int maxBytes) {
        JsonObject object = object(o, key, name);
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : object.entrySet()) {
            if (names != null && !names.matcher(e.getKey()).matches()) {
                throw invalid(name + " name '" + JsonBodyReader.printable(e.getKey()) + "' is not a valid variable name");
            }
            if (!(e.getValue() instanceof JsonString s)) {
                throw invalid(name + "." + JsonBodyReader.printable(e.getKey()) + " must be a string");
            }
            values.put(e.getKey(), s.getString());
        }
        if (object.toString().getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw invalid(name + " must be at most " + maxBytes + " bytes as JSON (UTF-8)");
        }
        return values;
    }

    /** An optional boolean: {@code fallback} when absent or null, else a 400 unless true or false. */
    public static boolean bool(JsonObject o, String key, boolean fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v.getValueType() != JsonValue.ValueType.TRUE && v.getValueType() != JsonValue.ValueType.FALSE) {
            throw invalid(name + " must be a boolean");
        }
        return v.getValueType() == JsonValue.ValueType.TRUE;
    }

    public static String string(JsonObject o, String key, String fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw invalid(name + " must be a string");
    }

    public static double number(JsonObject o, String key, double fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonNumber n) {
            if (!Double.isFinite(n.doubleValue())) {
                throw invalid(name + " is out of range");
            }
            return n.doubleValue();
        }
        throw invalid(name + " must be a number");
    }

    public static int integer(JsonObject o, String key, int fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonNumber n && n.isIntegral()) {
            try {
                return n.intValueExact();
            } catch (ArithmeticException e) {
                throw invalid(name + " is out of range");
            }
        }
        throw invalid(name + " must be an integer");
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
