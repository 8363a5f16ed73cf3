package dev.dockyard.tenancy;

import java.util.Locale;
import java.util.Optional;

/**
 * The shape of a new API key: Dockyard's ({@code dy_} and 43 characters of URL-safe base64), or
 * E2B's ({@code e2b_} and 64 lower-case hex digits), which E2B's Python SDK (and its JS SDK up to
 * 2.45) checks against {@code ^e2b_[0-9a-f]+$} before it sends it. Both carry 32 random bytes and
 * are stored as their SHA-256 hash alike; the kind only says how the key is written.
 */
public enum KeyKind {
    DOCKYARD, E2B;

    /** The name in the API: lower case. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind an API name names; empty for any other word. */
    public static Optional<KeyKind> named(String name) {
        for (KeyKind kind : values()) {
            if (kind.apiName().equals(name)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
