package dev.dockyard.credentials;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

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

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    @Override
    public String type() {
        return "oauth2";
    }

    @Override
    public String resolve(StoredCredential credential, Instant now, Duration window) {
        boolean fresh = credential.value() != null
                && (credential.expiresAt() == null || credential.expiresAt().isAfter(now.plus(window)));
        if (fresh) {
            return credential.value();
        }
        refresh(credential, now);
        return credential.value();
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
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new CredentialException("credential " + credential.name() + ": the token endpoint did not answer ("
                    + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CredentialException("credential " + credential.name() + ": interrupted while refreshing");
        }
        JsonObject token;
        try (var reader = Json.createReader(new StringReader(response.body()))) {
            token = reader.readObject();
        } catch (RuntimeException e) {
            throw new CredentialException("credential " + credential.name() + ": the token endpoint answered "
                    + response.statusCode() + " without JSON");
        }
        if (response.statusCode() != 200 || !token.containsKey("access_token")) {
            // RFC 6749 §5.2: error is a code, safe to repeat; never the body's other fields
            throw new CredentialException("credential " + credential.name() + " could not be refreshed: "
                    + token.getString("error", "HTTP " + response.statusCode()));
        }
        Instant expires = token.containsKey("expires_in")
                ? now.plusSeconds(token.getJsonNumber("expires_in").longValue()) : null;
        credential.refreshed(token.getString("access_token"), expires, token.getString("refresh_token", null));
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
