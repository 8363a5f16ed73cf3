package dev.dockyard.api;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * Optional members of a request body, read with their default when absent or null and a 400
 * naming the field ({@code name}, e.g. {@code sandbox.cpus}) when of the wrong type.
 */
final class JsonFields {

    private JsonFields() {
    }

    static String string(JsonObject o, String key, String fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw invalid(name + " must be a string");
    }

    static double number(JsonObject o, String key, double fallback, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonNumber n) {
            return n.doubleValue();
        }
        throw invalid(name + " must be a number");
    }

    static int integer(JsonObject o, String key, int fallback, String name) {
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
