package dev.dockyard.credentials;

import dev.dockyard.secrets.SealedString;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * A user's credential, exported into their sandboxes under {@code name}. Every secret column is
 * sealed; {@code expiresAt} is when the current value stops working (null: never).
 */
@Entity
@Table(name = "DY_CREDENTIAL")
public class StoredCredential {

    @Id
    @Column(length = 300)
    private String id;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(nullable = false, length = 100)
    private String name;

    @Column(nullable = false, length = 20)
    private String type;

    /** The secret (type secret) or the current access token (type oauth2). */
    @Column(name = "SECRET_VALUE", length = 8000)
    @Convert(converter = SealedString.class)
    private String value;

    @Column(name = "REFRESH_TOKEN", length = 8000)
    @Convert(converter = SealedString.class)
    private String refreshToken;

    @Column(name = "TOKEN_ENDPOINT", length = 1000)
    private String tokenEndpoint;

    @Column(name = "CLIENT_ID", length = 500)
    private String clientId;

    @Column(name = "CLIENT_SECRET", length = 2000)
    @Convert(converter = SealedString.class)
    private String clientSecret;

    @Column(name = "EXPIRES_AT")
    private Instant expiresAt;

    /**
     * A control plane is refreshing it until then (a lease): control planes sharing the database
     * never present the same refresh token twice, which providers that detect reuse punish by
     * revoking the whole token family.
     */
    @Column(name = "REFRESHING_UNTIL")
    private Instant refreshingUntil;

    protected StoredCredential() {
        // JPA
    }

    public StoredCredential(String userId, String name, String type) {
        this.id = userId + "/" + name;
        this.userId = userId;
        this.name = name;
        this.type = type;
    }

    public static String idOf(String userId, String name) {
        return userId + "/" + name;
    }

    public void secret(String newValue) {
        this.value = newValue;
        this.expiresAt = null;
    }

    public void oauth2(String newRefreshToken, String endpoint, String client, String secret) {
        this.refreshToken = newRefreshToken;
        this.tokenEndpoint = endpoint;
        this.clientId = client;
        this.clientSecret = secret;
        this.value = null;
        this.expiresAt = null;
    }

    /** A fresh access token (and the refresh token, when the server rotated it). */
    public void refreshed(String accessToken, Instant expires, String rotatedRefreshToken) {
        this.value = accessToken;
        this.expiresAt = expires;
        if (rotatedRefreshToken != null) {
            this.refreshToken = rotatedRefreshToken;
        }
    }

    public String id() {
        return id;
    }

    public String userId() {
        return userId;
    }

    public String name() {
        return name;
    }

    public String type() {
        return type;
    }

    public String value() {
        return value;
    }

    public String refreshToken() {
        return refreshToken;
    }

    public String tokenEndpoint() {
        return tokenEndpoint;
    }

    public String clientId() {
        return clientId;
    }

    public String clientSecret() {
        return clientSecret;
    }

    public Instant expiresAt() {
        return expiresAt;
    }

    /** Until when a control plane holds the refresh lease; null when none does. */
    public Instant refreshingUntil() {
        return refreshingUntil;
    }

    /** For stores that keep copies (tests): the lease as the database holds it. */
    public void refreshingUntil(Instant until) {
        this.refreshingUntil = until;
    }
}
