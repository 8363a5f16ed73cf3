package dev.dockyard.application.e2b;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a page of one of E2B's lists ends: the last item it held, by its creation and its id (the
 * lists' order: a runtime's, a snapshot's), sent as {@code X-Next-Token} and taken back as
 * {@code nextToken}. Opaque to clients, as E2B's own (base64url of {@code <created>__<id>}); a token
 * that does not decode is refused.
 */
public record PageToken(Instant createdAt, String id) {

    /** Dockyard's ids: {@code rt-…}, {@code snap-…}. */
    private static final Pattern ID = Pattern.compile("[a-z]{1,8}-[0-9a-f]{8,32}");
    private static final String SEPARATOR = "__";

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((createdAt + SEPARATOR + id).getBytes(StandardCharsets.UTF_8));
    }

    /** The position a token names; empty for anything this list did not hand out. */
    public static Optional<PageToken> decode(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            int at = text.indexOf(SEPARATOR);
            if (at < 0 || !ID.matcher(text.substring(at + SEPARATOR.length())).matches()) {
                return Optional.empty();
            }
            return Optional.of(new PageToken(Instant.parse(text.substring(0, at)),
                    text.substring(at + SEPARATOR.length())));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
