package dev.dockyard.proxy;

import dev.dockyard.http.Header;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The {@code Cookie} request header, read and edited pair by pair; the pairs the proxy leaves alone
 * are passed on exactly as the browser sent them.
 */
public final class Cookies {

    /** One {@code name=value} pair of a Cookie header, the value as sent (quotes and all). */
    public record Pair(String name, String value) {

        /** The value without the optional double quotes around it. */
        public String unquoted() {
            return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                    ? value.substring(1, value.length() - 1) : value;
        }

        @Override
        public String toString() {
            return name + "=" + value;
        }
    }

    private Cookies() {
    }

    /** Every pair of every Cookie header, in order. */
    public static List<Pair> parse(List<Header> headers) {
        List<Pair> pairs = new ArrayList<>();
        for (Header h : headers) {
            if (!h.is("Cookie")) {
                continue;
            }
            for (String item : h.value().split(";")) {
                String s = item.trim();
                if (s.isEmpty()) {
                    continue;
                }
                int eq = s.indexOf('=');
                pairs.add(eq < 0 ? new Pair(s, "") : new Pair(s.substring(0, eq).trim(), s.substring(eq + 1).trim()));
            }
        }
        return pairs;
    }

    /** The values of every cookie with this name, in order. */
    public static List<String> values(List<Header> headers, String name) {
        return parse(headers).stream().filter(p -> p.name().equals(name)).map(Pair::unquoted).toList();
    }

    /** The value of the first cookie with this name. */
    public static Optional<String> value(List<Header> headers, String name) {
        return parse(headers).stream().filter(p -> p.name().equals(name)).map(Pair::unquoted).findFirst();
    }

    /**
     * One Cookie header from these pairs, each passed through {@code edit} (null drops it); empty
     * when no pair is left.
     */
    public static Optional<String> rewrite(List<Pair> pairs, UnaryOperator<Pair> edit) {
        List<String> out = new ArrayList<>();
        for (Pair p : pairs) {
            Pair edited = edit.apply(p);
            if (edited != null) {
                out.add(edited.toString());
            }
        }
        return out.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", out));
    }
}
