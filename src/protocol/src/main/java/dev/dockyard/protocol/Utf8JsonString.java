package dev.dockyard.protocol;

import jakarta.json.JsonString;
import java.nio.charset.StandardCharsets;

/**
 * A JSON string value holding a {@link Utf8Text}: what {@link JsonBytes} reads a string into and
 * writes from its bytes, so that a file's content passes through JSON without a String. Equal to
 * any {@link JsonString} of the same characters, as JSON-P's contract says.
 */
final class Utf8JsonString implements JsonString {

    private final Utf8Text text;

    Utf8JsonString(Utf8Text text) {
        this.text = text;
    }

    Utf8Text text() {
        return text;
    }

    @Override
    public String getString() {
        return text.toString();
    }

    @Override
    public CharSequence getChars() {
        return getString();
    }

    @Override
    public ValueType getValueType() {
        return ValueType.STRING;
    }

    @Override
    public boolean equals(Object o) {
        if (o instanceof Utf8JsonString other) {
            return text.equals(other.text);
        }
        return o instanceof JsonString other && getString().equals(other.getString());
    }

    @Override
    public int hashCode() {
        return getString().hashCode();
    }

    /** The JSON text, quoted and escaped, as JSON-P's values answer it. */
    @Override
    public String toString() {
        return new String(JsonBytes.write(this), StandardCharsets.UTF_8);
    }
}
