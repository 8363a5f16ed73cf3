package dev.dockyard.executor;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.Set;

/**
 * The conformance fixtures' matching rules, as ConformanceIT applies them: objects member by
 * member and arrays element by element; strings exactly unless {@code "<any>"} (present),
 * {@code "<re:REGEX>"} (full match), {@code "<absent>"} (must not be there), {@code "<int>"} or
 * {@code "<float>"} (a number written as Python writes an int, or a float); numbers by value and
 * int/float form. The observation itself, its {@code extras} and a command's {@code metadata}
 * are compared exactly: a member the fixture does not name is a difference, so a renamed or
 * extra key cannot go unnoticed.
 */
public final class ConformanceMatch {

    /** Where an observation's members must be exactly those of the fixture. */
    public static final Set<String> EXACT = Set.of("$", "$.extras", "$.extras.metadata");

    private ConformanceMatch() {
    }

    /** The first place where {@code observed} breaks {@code expected}, as a JSON path and why. */
    public static Optional<String> difference(String path, JsonValue expected, JsonValue observed, Set<String> exact) {
        if (expected instanceof JsonString s) {
            String want = s.getString();
            if (want.equals("<any>")) {
                return observed == null ? Optional.of(path + ": missing") : Optional.empty();
            }
            if (want.equals("<absent>")) {
                return observed == null ? Optional.empty() : Optional.of(path + ": must be absent, is " + observed);
            }
            if (observed == null) {
                return Optional.of(path + ": missing, expected " + expected);
            }
            if (want.equals("<int>") || want.equals("<float>")) {
                boolean isFloat = observed instanceof JsonNumber n && isFloat(n);
                boolean ok = observed instanceof JsonNumber && (want.equals("<float>") == isFloat);
                return ok ? Optional.empty() : Optional.of(path + ": expected " + want + ", was " + observed);
            }
            if (!(observed instanceof JsonString o)) {
                return Optional.of(path + ": expected a string " + expected + ", was " + observed);
            }
            if (want.startsWith("<re:") && want.endsWith(">")) {
                String regex = want.substring(4, want.length() - 1);
                return o.getString().matches(regex) ? Optional.empty()
                        : Optional.of(path + ": " + o + " does not match " + regex);
            }
            return want.equals(o.getString()) ? Optional.empty()
                    : Optional.of(path + ": expected " + expected + " but was " + o);
        }
        if (observed == null) {
            return Optional.of(path + ": missing, expected " + expected);
        }
        if (expected instanceof JsonObject e) {
            if (!(observed instanceof JsonObject o)) {
                return Optional.of(path + ": expected an object, was " + observed);
            }
            for (var member : e.entrySet()) {
                Optional<String> d = difference(path + "." + member.getKey(), member.getValue(), o.get(member.getKey()),
                        exact);
                if (d.isPresent()) {
                    return d;
                }
            }
            if (exact.contains(path)) {
                for (String key : o.keySet()) {
                    if (!e.containsKey(key)) {
                        return Optional.of(path + ": unexpected member \"" + key + "\": " + o.get(key));
                    }
                }
            }
            return Optional.empty();
        }
        if (expected instanceof JsonArray e) {
            if (!(observed instanceof JsonArray o) || o.size() != e.size()) {
                return Optional.of(path + ": expected " + e.size() + " elements " + expected + ", was " + observed);
            }
            for (int i = 0; i < e.size(); i++) {
                Optional<String> d = difference(path + "[" + i + "]", e.get(i), o.get(i), exact);
                if (d.isPresent()) {
                    return d;
                }
            }
            return Optional.empty();
        }
        if (expected instanceof JsonNumber e) {
            boolean same = observed instanceof JsonNumber o && e.bigDecimalValue().compareTo(o.bigDecimalValue()) == 0
                    && isFloat(e) == isFloat(o);
            return same ? Optional.empty() : Optional.of(path + ": expected " + expected + ", was " + observed);
        }
        return expected.equals(observed) ? Optional.empty()
                : Optional.of(path + ": expected " + expected + ", was " + observed);
    }

    /** Python's json writes a float with a fraction or an exponent, an int without. */
    static boolean isFloat(JsonNumber n) {
        String text = n.toString();
        return text.contains(".") || text.contains("e") || text.contains("E");
    }
}
