package dev.dockyard.application.e2b;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a page of E2B's sandbox list ends: the last sandbox it held, by its start and its runtime
 * id (the list's order), sent as {@code X-Next-Token} and taken back as {@code nextToken}. Opaque to
 * clients, as E2B's own (base64url of {@code <start>__<id>}); a token that does not decode is refused.
 */
public record PageToken(Instant startedAt, String runtimeId) {

    private static final Pattern RUNTIME_ID = Pattern.compile("rt-[0-9a-f]{16}");
    private static final String SEPARATOR = "__";

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((startedAt + SEPARATOR + runtimeId).getBytes(StandardCharsets.UTF_8));
    }

    /** The position a token names; empty for anything this list did not hand out. */
    public static Optional<PageToken> decode(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            int at = text.indexOf(SEPARATOR);
            if (at < 0 || !RUNTIME_ID.matcher(text.substring(at + SEPARATOR.length())).matches()) {
                return Optional.empty();
            }
            return Optional.of(new PageToken(Instant.parse(text.substring(0, at)),
                    text.substring(at + SEPARATOR.length())));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
