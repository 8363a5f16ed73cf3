package dev.dockyard.transport;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The request paths Liberty's web container refuses before it picks an application, judged the way
 * it judges them, so that exactly those get a problem instead of its HTML 400 (CWWWC0005I).
 *
 * <p>Open Liberty 26.0.0.3's {@code WebContainer.handleRequest} decodes the raw path with
 * {@code WSURLDecoder} (a {@code %} must be followed by two hexadecimal digits; bytes are read as
 * UTF-8, invalid sequences become U+FFFD) and then, from Servlet 6.0 on, canonicalizes it with
 * {@code RequestUtils.canonicalizeURI}, which refuses a segment starting with {@code .;} or
 * {@code ..;}, a segment starting with {@code ;} that is not the last, a {@code ..} with no segment
 * before it, and a control character (below U+0020, or U+007F) left after path parameters are cut.
 * Everything else, {@code %C0%AF} or {@code ..%2F} included, reaches the application, whose own
 * error page answers with a problem: this class must refuse nothing more, or it would answer for
 * the application.
 */
public final class PathRefusals {

    private static final Pattern REPEATED_SLASHES = Pattern.compile("//+");

    private PathRefusals() {
    }

    /** What is wrong with the raw (undecoded) path, or null when the web container would take it. */
    public static String refusal(String rawPath) {
        String path = decode(rawPath);
        if (path == null) {
            return "The request's path has an invalid percent-encoding (a '%' not followed by two hexadecimal digits)";
        }
        if (path.indexOf(';') >= 0) {
            List<String> segments = segments(path);
            StringBuilder cut = new StringBuilder();
            for (int i = 0; i < segments.size(); i++) {
                String segment = segments.get(i);
                if (segment.startsWith(".;") || segment.startsWith("..;")) {
                    return "The request's path has a dot segment with a path parameter";
                }
                if (segment.startsWith(";") && i + 1 < segments.size()) {
                    return "The request's path has an empty segment with a path parameter";
                }
                int semicolon = segment.indexOf(';');
                boolean session = segment.toLowerCase(Locale.ROOT).contains(";jsessionid");
                cut.append('/').append(semicolon < 0 || session ? segment : segment.substring(0, semicolon));
            }
            path = cut.toString();
        }
        if (path.contains("//")) {
            // every request passes here: String.replaceAll compiled its pattern each time (0.6 % of the
            // control plane's CPU at 528 actions/s, async-profiler 2026-12-03)
            path = REPEATED_SLASHES.matcher(path).replaceAll("/");
        }
        while (path.contains("/./")) {
            path = path.replace("/./", "/");
        }
        if (path.endsWith("/.")) {
            path = path.substring(0, path.length() - 2);
        }
        if (path.contains("/..")) {
            // a ".." takes its segment away (its control characters too); none left to take is refused
            List<String> kept = new ArrayList<>();
            for (String segment : segments(path)) {
                if (!segment.equals("..")) {
                    kept.add(segment);
                } else if (kept.isEmpty()) {
                    return "The request's path goes above the root with '..'";
                } else {
                    kept.remove(kept.size() - 1);
                }
            }
            path = kept.isEmpty() ? "/" : "/" + String.join("/", kept);
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return "The request's path has a control character";
            }
        }
        return null;
    }

    private static List<String> segments(String path) {
        String rest = path.startsWith("/") ? path.substring(1) : path;
        return new ArrayList<>(Arrays.asList(rest.split("/", -1)));
    }

    /** {@code %XX} sequences decoded as UTF-8 bytes, everything else kept; null for a malformed escape. */
    static String decode(String raw) {
        StringBuilder out = new StringBuilder(raw.length());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                flush(bytes, out);
                out.append(c);
                continue;
            }
            if (i + 2 >= raw.length() || !isAsciiHex(raw.charAt(i + 1)) || !isAsciiHex(raw.charAt(i + 2))) {
                return null;
            }
            bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
            i += 2;
        }
        flush(bytes, out);
        return out.toString();
    }

    private static boolean isAsciiHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static void flush(ByteArrayOutputStream bytes, StringBuilder out) {
        if (bytes.size() > 0) {
            out.append(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
            bytes.reset();
        }
    }
}
