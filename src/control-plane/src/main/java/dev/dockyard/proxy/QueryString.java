package dev.dockyard.proxy;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A raw (still percent-encoded) query string, edited one parameter at a time so that every other
 * parameter reaches the sandbox byte for byte as the client wrote it.
 */
public final class QueryString {

    private QueryString() {
    }

    /** The decoded value of the first parameter with this name. */
    public static Optional<String> value(String raw, String name) {
        for (String part : parts(raw)) {
            if (name.equals(nameOf(part))) {
                int eq = part.indexOf('=');
                return Optional.of(eq < 0 ? "" : decode(part.substring(eq + 1)));
            }
        }
        return Optional.empty();
    }

    /** The query less every parameter with this name; null when nothing is left. */
    public static String without(String raw, String name) {
        return join(parts(raw).stream().filter(p -> !name.equals(nameOf(p))).toList());
    }

    /** The query with each value of this parameter that equals {@code from} (decoded) set to {@code to}. */
    public static String replace(String raw, String name, String from, String to) {
        List<String> out = new ArrayList<>();
        for (String part : parts(raw)) {
            int eq = part.indexOf('=');
            if (eq >= 0 && name.equals(nameOf(part)) && from.equals(decode(part.substring(eq + 1)))) {
                out.add(part.substring(0, eq + 1) + URLEncoder.encode(to, StandardCharsets.UTF_8));
            } else {
                out.add(part);
            }
        }
        return join(out);
    }

    private static List<String> parts(String raw) {
        List<String> parts = new ArrayList<>();
        if (raw != null) {
            for (String part : raw.split("&", -1)) {
                if (!part.isEmpty()) {
                    parts.add(part);
                }
            }
        }
        return parts;
    }

    private static String nameOf(String part) {
        int eq = part.indexOf('=');
        return decode(eq < 0 ? part : part.substring(0, eq));
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // a stray '%': compare it as written
        }
    }

    private static String join(List<String> parts) {
        return parts.isEmpty() ? null : String.join("&", parts);
    }
}
