package dev.dockyard.credentials;

import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * OAuth2 access tokens from a refresh token: the {@code refresh_token} grant of RFC 6749 §6
 * against the credential's token endpoint, with client authentication by HTTP Basic when a client
 * secret is stored. A rotated refresh token replaces the old one. Tokens go only where the
 * {@link TokenEndpointPolicy} allows, on the address it checked ({@link PinnedCall}), never
 * following a redirect.
 */
@ApplicationScoped
public class OAuth2RefreshProvider implements CredentialProvider {

    @Inject
    TokenEndpointPolicy policy;

    static final int MAX_ANSWER_BYTES = 64 * 1024;
    static final long CALL_SECONDS = 20;
    static final int CONNECT_MILLIS = 5_000;
    /** The one detail of a call that got no usable HTTP answer, whatever the reason. */
    static final String UNANSWERED = "the token endpoint could not be reached or gave no usable answer";

    @Override
    public String type() {
        return "oauth2";
    }

    @Override
    public String resolve(StoredCredential credential, Instant now, Duration window) {
        if (needsRefresh(credential, now, window)) {
            refresh(credential, now);
        }
        return credential.value();
    }

    @Override
    public boolean needsRefresh(StoredCredential credential, Instant now, Duration window) {
        return credential.value() == null
                || (credential.expiresAt() != null && !credential.expiresAt().isAfter(now.plus(window)));
    }

    private void refresh(StoredCredential credential, Instant now) {
        String form = "grant_type=refresh_token&refresh_token=" + encode(credential.refreshToken())
                + (credential.clientId() != null && credential.clientSecret() == null
                        ? "&client_id=" + encode(credential.clientId()) : "");
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/x-www-form-urlencoded");
        headers.put("Accept", "application/json");
        if (credential.clientId() != null && credential.clientSecret() != null) {
            String basic = encode(credential.clientId()) + ":" + encode(credential.clientSecret());
            headers.put("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
        }
        PinnedCall.Answer response = exchange(credential, endpoint(credential), headers,
                form.getBytes(StandardCharsets.UTF_8));
        JsonObject token;
        try (var reader = Jsonp.createReader(new ByteArrayInputStream(response.body()))) {
            token = reader.readObject();
        } catch (RuntimeException e) {
            throw new CredentialException("credential " + credential.name() + ": the token endpoint answered "
                    + response.status() + " without JSON");
        }
        // a rotated refresh token is kept first, whatever else in the answer is wrong: the provider
        // has spent the old one already
        String rotated = text(token, "refresh_token");
        String access = text(token, "access_token");
        if (response.status() != 200 || access == null) {
            if (response.status() == 200 && rotated != null) {
                credential.refreshed(credential.value(), credential.expiresAt(), rotated);
            }
            // RFC 6749 §5.2: error is a code, safe to repeat; never the body's other fields
            String error = text(token, "error");
            throw new CredentialException("credential " + credential.name() + " could not be refreshed: "
                    + (error != null && error.matches("[A-Za-z0-9_.-]{1,64}") ? error
                    : "HTTP " + response.status() + (access == null ? " without an access_token" : "")));
        }
        credential.refreshed(access, expiry(token, now), rotated);
    }

    /**
     * The call, bounded as a whole (an answer trickling in counts) and in size, to the address the
     * policy checked. Every way it can fail without an HTTP answer (refused, unreachable, TLS,
     * timeout, too large, not HTTP) is one message: telling them apart would let a user probe which
     * ports answer on the hosts the policy admits.
     */
    private PinnedCall.Answer exchange(StoredCredential credential, TokenEndpointPolicy.Endpoint endpoint,
                                       Map<String, String> headers, byte[] form) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CALL_SECONDS);
        try {
            return PinnedCall.post(endpoint, headers, form, CONNECT_MILLIS, deadline, MAX_ANSWER_BYTES);
        } catch (IOException | RuntimeException e) {
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
            throw new CredentialException("credential " + credential.name() + ": " + UNANSWERED);
        }
    }

    private static String text(JsonObject json, String key) {
        return json.get(key) instanceof JsonString s ? s.getString() : null;
    }

    /** expires_in as a number or a numeric string (some providers send one), within ten years; else unknown. */
    private static Instant expiry(JsonObject token, Instant now) {
        JsonValue value = token.get("expires_in");
        long seconds;
        if (value instanceof JsonNumber n) {
            seconds = n.longValue();
        } else if (value instanceof JsonString s && s.getString().matches("\\d{1,10}")) {
            seconds = Long.parseLong(s.getString());
        } else {
            return null;
        }
        return seconds < 0 || seconds > 315_360_000L ? null : now.plusSeconds(seconds);
    }

    private TokenEndpointPolicy.Endpoint endpoint(StoredCredential credential) {
        try {
            return policy.resolve(credential.tokenEndpoint());
        } catch (CredentialException e) {
            throw new CredentialException("credential " + credential.name() + ": " + e.getMessage());
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8);
    }
}
