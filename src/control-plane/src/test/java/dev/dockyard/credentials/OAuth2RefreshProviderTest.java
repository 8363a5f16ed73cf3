package dev.dockyard.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
        assertTrue(e.getMessage().endsWith(OAuth2RefreshProvider.UNANSWERED), e.getMessage());
    }

    @Test
    void shouldSayTheSameWhateverKeptTheEndpointFromAnswering() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        StoredCredential refused = new StoredCredential("u", "TOKEN", "oauth2");
        refused.oauth2("rt-1", "http://127.0.0.1:" + closedPort + "/token", "client", null);
        String connectError = assertThrows(CredentialException.class,
                () -> provider.resolve(refused, NOW, Duration.ZERO)).getMessage();
        // a listener that hangs up without a word, and one that speaks no HTTP
        List<String> others = new ArrayList<>();
        for (byte[] says : List.of(new byte[0], "SSH-2.0-OpenSSH_9.6\r\n".getBytes(StandardCharsets.ISO_8859_1))) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Thread peer = new Thread(() -> {
                    try (Socket c = s.accept()) {
                        c.getOutputStream().write(says);
                    } catch (Exception ignored) {
                        // the test's own listener: nothing to report
                    }
                });
                peer.start();
                StoredCredential c = new StoredCredential("u", "TOKEN", "oauth2");
                c.oauth2("rt-1", "http://127.0.0.1:" + s.getLocalPort() + "/token", "client", null);
                others.add(assertThrows(CredentialException.class, () -> provider.resolve(c, NOW, Duration.ZERO))
                        .getMessage());
                peer.join(5_000);
            }
        }
        answer.set("{\"access_token\":\"" + "x".repeat(OAuth2RefreshProvider.MAX_ANSWER_BYTES) + "\"}");
        others.add(assertThrows(CredentialException.class, () -> provider.resolve(credential(), NOW, Duration.ZERO))
                .getMessage());
        assertEquals("credential TOKEN: " + OAuth2RefreshProvider.UNANSWERED, connectError);
        assertEquals(List.of(connectError, connectError, connectError), others);
    }

    @Test
    void shouldConnectToTheAddressTheCheckJudgedAndNameTheHostAsWritten() {
        AtomicReference<String> host = new AtomicReference<>();
        server.createContext("/pinned", exchange -> {
            host.set(exchange.getRequestHeaders().getFirst("Host"));
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"access_token\":\"at-pinned\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        int port = server.getAddress().getPort();
        // a name that resolves to nothing now: only the address the check pinned can be reached
        provider.policy = new TokenEndpointPolicy(Set.of()) {
            @Override
            public Endpoint resolve(String endpoint) {
                return new Endpoint(URI.create(endpoint), InetAddress.getLoopbackAddress());
            }
        };
        StoredCredential credential = new StoredCredential("u", "TOKEN", "oauth2");
        credential.oauth2("rt-1", "http://token.invalid:" + port + "/pinned", "client", null);
        assertEquals("at-pinned", provider.resolve(credential, NOW, Duration.ZERO));
        assertEquals("token.invalid:" + port, host.get());
    }

    @Test
    void shouldReadAChunkedAnswer() {
        server.createContext("/chunked", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 0); // 0: chunked
            exchange.getResponseBody().write("{\"access_token\":".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            exchange.getResponseBody().write("\"at-chunked\"}".getBytes(StandardCharsets.UTF_8));
            exchange.close();
        });
        StoredCredential credential = new StoredCredential("u", "TOKEN", "oauth2");
        credential.oauth2("rt-1", "http://127.0.0.1:" + server.getAddress().getPort() + "/chunked", "client", null);
        assertEquals("at-chunked", provider.resolve(credential, NOW, Duration.ZERO));
    }

    @Test
    void shouldNameOnlyTheErrorCodeOfARefusal() {
        answer.set("{\"error\":\"invalid_grant\",\"error_description\":\"token rt-1 was revoked\"}");
        CredentialException e = assertThrows(CredentialException.class,
                () -> provider.resolve(credential(), NOW, Duration.ZERO));
        assertTrue(e.getMessage().endsWith("invalid_grant") && !e.getMessage().contains("rt-1"), e.getMessage());
    }
}
