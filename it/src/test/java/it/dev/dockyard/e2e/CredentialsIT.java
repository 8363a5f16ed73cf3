package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Provider credentials: stored secrets and OAuth2 refresh tokens against a real token endpoint
 * started by the test on 127.0.0.1, validated before injection, refreshed while the runtime lives.
 */
class CredentialsIT {

    private static final DockyardApi ADMIN = new DockyardApi();
    private static HttpServer tokenEndpoint;
    private static final AtomicInteger ISSUED = new AtomicInteger();
    private static final AtomicBoolean BROKEN = new AtomicBoolean();
    private static final AtomicBoolean BROKEN_ENDPOINT_FIXED = new AtomicBoolean();
    private static final Set<String> VALID_REFRESH_TOKENS = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void startTokenEndpoint() throws Exception {
        tokenEndpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        tokenEndpoint.createContext("/token", exchange -> {
            String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String answer;
            int status;
            String presented = formValue(form, "refresh_token");
            if (BROKEN.get() || !form.contains("grant_type=refresh_token") || !spend(presented)) {
                status = 400;
                answer = "{\"error\":\"invalid_grant\",\"error_description\":\"refresh token revoked\"}";
            } else {
                int n = ISSUED.incrementAndGet();
                status = 200;
                // a short-lived token, always inside the refresh window: every refresh makes a new one,
                // and the refresh token rotates: the one presented is spent, as with GitHub's and Google's
                String next = "rt-" + UUID.randomUUID();
                VALID_REFRESH_TOKENS.add(next);
                answer = "{\"access_token\":\"at-" + n + "\",\"token_type\":\"bearer\",\"expires_in\":5,"
                        + "\"refresh_token\":\"" + next + "\"}";
            }
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        tokenEndpoint.createContext("/broken", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = (BROKEN_ENDPOINT_FIXED.get() ? "{\"access_token\":\"at-b\",\"expires_in\":5}"
                    : "{\"error\":\"invalid_client\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(BROKEN_ENDPOINT_FIXED.get() ? 200 : 401, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        tokenEndpoint.start();
    }

    /** A refresh token the endpoint issued (or the tests handed out) and nobody presented yet. */
    private static String issue() {
        String token = "rt-" + UUID.randomUUID();
        VALID_REFRESH_TOKENS.add(token);
        return token;
    }

    private static boolean spend(String refreshToken) {
        return refreshToken != null && VALID_REFRESH_TOKENS.remove(refreshToken);
    }

    private static String formValue(String form, String key) {
        for (String pair : form.split("&")) {
            if (pair.startsWith(key + "=")) {
                return URLDecoder.decode(pair.substring(key.length() + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    @AfterAll
    static void stopTokenEndpoint() {
        tokenEndpoint.stop(0);
    }

    private static String endpoint() {
        return "http://127.0.0.1:" + tokenEndpoint.getAddress().getPort() + "/token";
    }

    private static String brokenEndpoint() {
        return "http://127.0.0.1:" + tokenEndpoint.getAddress().getPort() + "/broken";
    }

    private static DockyardApi newUser() {
        String userId = "cred-" + UUID.randomUUID().toString().substring(0, 8);
        return ADMIN.withKey(ADMIN.post("users", Json.createObjectBuilder().add("userId", userId).build()).json()
                .getString("apiKey"));
    }

    private static String sha256(String value) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(value.getBytes(StandardCharsets.UTF_8)));
    }

    private static String hashIn(DockyardApi user, String runtime, String variable) {
        return user.act(runtime, DockyardApi.run("printf %s \"$" + variable + "\" | sha256sum | cut -c1-64"))
                .getString("content");
    }

    @Test
    void shouldInjectAStoredSecretAndNeverShowIt() throws Exception {
        DockyardApi user = newUser();
        assertEquals(204, user.put("credentials/GIT_TOKEN", Json.createObjectBuilder().add("type", "secret")
                .add("value", "ghp-stored-secret").build()).status());
        String listed = user.get("credentials").body();
        assertTrue(listed.contains("\"name\":\"GIT_TOKEN\"") && !listed.contains("ghp-stored-secret"), listed);
        assertEquals(400, user.put("credentials/LLM_API_KEY", Json.createObjectBuilder().add("type", "secret")
                .add("value", "x").build()).status(), "reserved names are refused");

        DockyardApi.Answer runtime = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-cred-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, runtime.status(), runtime.body());
        String id = runtime.json().getString("id");
        try {
            assertEquals(sha256("ghp-stored-secret"), hashIn(user, id, "GIT_TOKEN"));
        } finally {
            user.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldRefreshAnOAuth2TokenBeforeInjectionAndWhileTheRuntimeLives() throws Exception {
        DockyardApi user = newUser();
        BROKEN.set(false);
        assertEquals(204, user.put("credentials/OAUTH_TOKEN", Json.createObjectBuilder().add("type", "oauth2")
                .add("refreshToken", issue()).add("tokenEndpoint", endpoint()).add("clientId", "dockyard-it")
                .build()).status());
        DockyardApi.Answer runtime = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-oauth-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, runtime.status(), runtime.body());
        String id = runtime.json().getString("id");
        try {
            String injected = hashIn(user, id, "OAUTH_TOKEN");
            int atInjection = ISSUED.get();
            assertEquals(sha256("at-" + atInjection), injected, "the token valid at injection is the newest one");
            // it expires within the refresh window: the refresher gets a new one and pushes it in
            Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofSeconds(1)).until(() ->
                    ISSUED.get() > atInjection && hashIn(user, id, "OAUTH_TOKEN").equals(sha256("at-" + ISSUED.get())));
            assertFalse(user.get("credentials").body().contains("at-"), "no token value is ever listed");
        } finally {
            user.delete("credentials/OAUTH_TOKEN");
            user.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldRefuseARevokedRefreshTokenAndFailProvisioningAtTheCredentialStep() throws Exception {
        DockyardApi user = newUser();
        BROKEN.set(true);
        try {
            DockyardApi.Answer refused = user.put("credentials/REVOKED", Json.createObjectBuilder().add("type", "oauth2")
                    .add("refreshToken", issue()).add("tokenEndpoint", endpoint()).build());
            assertEquals(400, refused.status(), refused.body());
            assertTrue(refused.body().contains("invalid_grant"), refused.body());
            assertFalse(refused.body().contains("rt-"), "the refresh token is not echoed");

            BROKEN.set(false);
            assertEquals(204, user.put("credentials/LATER_REVOKED", Json.createObjectBuilder().add("type", "oauth2")
                    .add("refreshToken", issue()).add("tokenEndpoint", endpoint()).build()).status());
            BROKEN.set(true);
            DockyardApi.Answer failed = user.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-revoked-" + UUID.randomUUID()).build(), 60);
            assertEquals("ERROR", failed.json().getString("status"), failed.body());
            assertTrue(failed.json().getString("statusMessage").startsWith(
                    "Provisioning failed at step 'credentials': credential LATER_REVOKED could not be refreshed: "
                            + "invalid_grant"), failed.json().getString("statusMessage"));
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id="
                    + failed.json().getString("id")));
        } finally {
            BROKEN.set(false);
            user.delete("credentials/LATER_REVOKED");
        }
    }

    @Test
    void shouldKeepTheRotatedTokenOfOneCredentialWhenAnotherFailsToRefresh() {
        DockyardApi user = newUser();
        BROKEN.set(false);
        BROKEN_ENDPOINT_FIXED.set(true);
        try {
            // A rotates on every refresh; B's endpoint stops answering after B was stored
            assertEquals(204, user.put("credentials/A_ROTATING", Json.createObjectBuilder().add("type", "oauth2")
                    .add("refreshToken", issue()).add("tokenEndpoint", endpoint()).build()).status());
            assertEquals(204, user.put("credentials/B_FAILING", Json.createObjectBuilder().add("type", "oauth2")
                    .add("refreshToken", "rt-b").add("tokenEndpoint", brokenEndpoint()).build()).status());
            BROKEN_ENDPOINT_FIXED.set(false);
            // both tokens expire within the refresh window: the next provisioning refreshes A (rotating
            // it at the provider) before B's endpoint refuses

            DockyardApi.Answer failed = user.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-rotate-" + UUID.randomUUID()).build(), 60);
            assertEquals("ERROR", failed.json().getString("status"), failed.body());
            assertTrue(failed.json().getString("statusMessage").contains("credential B_FAILING"),
                    failed.json().getString("statusMessage"));

            // A's refresh spent its token at the provider: the rotated one must have been stored
            assertEquals(204, user.delete("credentials/B_FAILING").status());
            DockyardApi.Answer runtime = user.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-rotate-" + UUID.randomUUID()).build(), 120);
            assertEquals(201, runtime.status(), runtime.body());
            assertEquals("READY", runtime.json().getString("status"), runtime.body());
            user.delete("runtimes/" + runtime.json().getString("id"));
        } finally {
            BROKEN_ENDPOINT_FIXED.set(false);
            user.delete("credentials/A_ROTATING");
            user.delete("credentials/B_FAILING");
        }
    }

    @Test
    void shouldRefuseATokenEndpointAnAdminDidNotAllow() {
        DockyardApi user = newUser();
        int before = ISSUED.get();
        for (String endpoint : List.of("http://localhost:" + tokenEndpoint.getAddress().getPort() + "/token",
                "https://127.0.0.2/token", "file:///etc/passwd")) {
            DockyardApi.Answer refused = user.put("credentials/ELSEWHERE", Json.createObjectBuilder()
                    .add("type", "oauth2").add("refreshToken", issue()).add("tokenEndpoint", endpoint).build());
            assertEquals(400, refused.status(), endpoint + ": " + refused.body());
            assertTrue(refused.body().contains("tokenEndpoint"), refused.body());
        }
        assertEquals(before, ISSUED.get(), "no refresh token was sent anywhere");
        assertFalse(user.get("credentials").body().contains("ELSEWHERE"));
    }
}
