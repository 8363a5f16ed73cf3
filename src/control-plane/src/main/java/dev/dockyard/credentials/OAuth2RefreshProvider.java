package dev.dockyard.credentials;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * OAuth2 access tokens from a refresh token: the {@code refresh_token} grant of RFC 6749 §6
 * against the credential's token endpoint, with client authentication by HTTP Basic when a client
 * secret is stored. A rotated refresh token replaces the old one. Tokens go only where the
 * {@link TokenEndpointPolicy} allows, never following a redirect.
 */
@ApplicationScoped
public class OAuth2RefreshProvider implements CredentialProvider {

    @Inject
    TokenEndpointPolicy policy;

    static final int MAX_ANSWER_BYTES = 64 * 1024;
    static final long CALL_SECONDS = 20;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();

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
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint(credential))
                .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(form));
        if (credential.clientId() != null && credential.clientSecret() != null) {
            String basic = encode(credential.clientId()) + ":" + encode(credential.clientSecret());
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<byte[]> response = exchange(credential, request.build());
        JsonObject token;
        try (var reader = Json.createReader(new ByteArrayInputStream(response.body()))) {
            token = reader.readObject();
        } catch (RuntimeException e) {
            throw new CredentialException("credential " + credential.name() + ": the token endpoint answered "
                    + response.statusCode() + " without JSON");
        }
        // a rotated refresh token is kept first, whatever else in the answer is wrong: the provider
        // has spent the old one already
        String rotated = text(token, "refresh_token");
        String access = text(token, "access_token");
        if (response.statusCode() != 200 || access == null) {
            if (response.statusCode() == 200 && rotated != null) {
                credential.refreshed(credential.value(), credential.expiresAt(), rotated);
            }
            // RFC 6749 §5.2: error is a code, safe to repeat; never the body's other fields
            String error = text(token, "error");
            throw new CredentialException("credential " + credential.name() + " could not be refreshed: "
                    + (error != null && error.matches("[A-Za-z0-9_.-]{1,64}") ? error
                    : "HTTP " + response.statusCode() + (access == null ? " without an access_token" : "")));
        }
        credential.refreshed(access, expiry(token, now), rotated);
    }

    /** The call, bounded as a whole (an answer trickling in counts) and in size. */
    private HttpResponse<byte[]> exchange(StoredCredential credential, HttpRequest request) {
        CompletableFuture<HttpResponse<byte[]>> call = http.sendAsync(request,
                info -> new LimitedBody(MAX_ANSWER_BYTES));
        try {
            return call.get(CALL_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new CredentialException("credential " + credential.name() + ": the token endpoint did not answer "
                    + "within " + CALL_SECONDS + " s");
        } catch (ExecutionException e) {
            String why = e.getCause() instanceof LimitedBody.TooLargeException ? "answered more than "
                    + MAX_ANSWER_BYTES + " bytes" : "did not answer (" + e.getCause().getClass().getSimpleName() + ")";
            throw new CredentialException("credential " + credential.name() + ": the token endpoint " + why);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new CredentialException("credential " + credential.name() + ": interrupted while refreshing");
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

    private URI endpoint(StoredCredential credential) {
        try {
            return policy.check(credential.tokenEndpoint());
        } catch (CredentialException e) {
            throw new CredentialException("credential " + credential.name() + ": " + e.getMessage());
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8);
    }
}
