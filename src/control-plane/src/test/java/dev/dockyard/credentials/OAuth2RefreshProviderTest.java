package dev.dockyard.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The refresh_token grant against a token endpoint on 127.0.0.1 that answers what each test says. */
class OAuth2RefreshProviderTest {

    private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");
    private final AtomicReference<String> answer = new AtomicReference<>();
    private HttpServer server;
    private OAuth2RefreshProvider provider;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/token", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = answer.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        provider = new OAuth2RefreshProvider();
        provider.policy = new TokenEndpointPolicy(Set.of("127.0.0.1"));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private StoredCredential credential() {
        StoredCredential credential = new StoredCredential("u", "TOKEN", "oauth2");
        credential.oauth2("rt-1", "http://127.0.0.1:" + server.getAddress().getPort() + "/token", "client", null);
        return credential;
    }

    @Test
    void shouldKeepARotatedTokenWhenTheAnswerHasNoAccessToken() {
        answer.set("{\"refresh_token\":\"rt-2\",\"token_type\":\"bearer\"}");
        StoredCredential credential = credential();
        CredentialException e = assertThrows(CredentialException.class,
                () -> provider.resolve(credential, NOW, Duration.ZERO));
        assertTrue(e.getMessage().contains("without an access_token"), e.getMessage());
        assertEquals("rt-2", credential.refreshToken());
    }

    @Test
    void shouldAcceptExpiresInAsANumericString() {
        answer.set("{\"access_token\":\"at\",\"expires_in\":\"3600\",\"refresh_token\":\"rt-2\"}");
        StoredCredential credential = credential();
        assertEquals("at", provider.resolve(credential, NOW, Duration.ZERO));
        assertEquals(NOW.plusSeconds(3600), credential.expiresAt());
        assertEquals("rt-2", credential.refreshToken());
    }

    @Test
    void shouldRefuseAnAnswerLargerThanATokenCanBe() {
        answer.set("{\"access_token\":\"" + "x".repeat(OAuth2RefreshProvider.MAX_ANSWER_BYTES) + "\"}");
        CredentialException e = assertThrows(CredentialException.class,
                () -> provider.resolve(credential(), NOW, Duration.ZERO));
        assertTrue(e.getMessage().contains("more than"), e.getMessage());
    }

    @Test
    void shouldNameOnlyTheErrorCodeOfARefusal() {
        answer.set("{\"error\":\"invalid_grant\",\"error_description\":\"token rt-1 was revoked\"}");
        CredentialException e = assertThrows(CredentialException.class,
                () -> provider.resolve(credential(), NOW, Duration.ZERO));
        assertTrue(e.getMessage().endsWith("invalid_grant") && !e.getMessage().contains("rt-1"), e.getMessage());
    }
}
