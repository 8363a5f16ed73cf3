package dev.dockyard.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a dormant server is told at claim, from what OpenHands' app server sends to /start. */
class DormantServersTest {

    private static final List<String> KEY_VARIABLES = List.of("SESSION_API_KEY", "OH_SESSION_API_KEYS_0");

    @Test
    void shouldCarryOpenHandsBootConfigurationInTheInitsOwnFields() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("OH_WEBHOOKS_0_BASE_URL", "http://app:3000/api/v1/webhooks");
        environment.put("OH_WEBHOOKS_0_HEADERS", "{\"X-Session-API-Key\":\"k\"}");
        environment.put("OH_WEBHOOKS_0_FLUSH_DELAY", "2.5");
        environment.put("OH_ALLOW_CORS_ORIGINS_0", "http://localhost:3000");
        environment.put("OH_CONVERSATIONS_PATH", "/workspace/conversations");
        environment.put("OH_SESSION_API_KEYS_0", "the-runtime-key");
        environment.put("GITHUB_TOKEN", "ghp_x");

        JsonObject init = DormantServers.initRequest("the-runtime-key", environment, "http://cp/rt", KEY_VARIABLES);

        assertEquals("the-runtime-key", init.getJsonArray("session_api_keys").getString(0));
        assertEquals(1, init.getJsonArray("session_api_keys").size(), "the runtime's key and no other");
        JsonObject webhook = init.getJsonArray("webhooks").getJsonObject(0);
        assertEquals("http://app:3000/api/v1/webhooks", webhook.getString("base_url"));
        assertEquals("k", webhook.getJsonObject("headers").getString("X-Session-API-Key"));
        assertEquals(2.5, webhook.getJsonNumber("flush_delay").doubleValue());
        assertEquals("http://localhost:3000", init.getJsonArray("allow_cors_origins").getString(0));
        assertEquals("/workspace/conversations", init.getString("conversations_path"));
        assertEquals("http://cp/rt", init.getString("web_url"));
        assertEquals(Map.of("GITHUB_TOKEN", "ghp_x").keySet(), init.getJsonObject("env").keySet(),
                "OH_ configuration goes in its fields, the rest in env, no key twice");
    }

    @Test
    void shouldRefuseConfigurationADormantServerReadsOnlyAtBoot() {
        assertTrue(DormantServers.canInitialise(Map.of("OH_WEBHOOKS_1_BASE_URL", "u", "PATH_X", "p"), KEY_VARIABLES));
        assertTrue(DormantServers.canInitialise(Map.of("OH_SESSION_API_KEYS_0", "k"), KEY_VARIABLES));
        assertFalse(DormantServers.canInitialise(Map.of("OH_ENABLE_VSCODE", "false"), KEY_VARIABLES));
    }

    @Test
    void shouldSendTheInitOverPlainHttp11WithNoUpgradeOffer() throws Exception {
        // uvicorn with httptools drops the body of a request that offers h2c (issue 31 item 3)
        List<String> head = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                try (Socket client = server.accept()) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
                            StandardCharsets.ISO_8859_1));
                    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                        head.add(line);
                    }
                    OutputStream out = client.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (Exception e) {
                    head.add("failed: " + e);
                }
            });
            answering.start();
            new DormantServers().initialize(URI.create("http://127.0.0.1:" + server.getLocalPort()), "init-key",
                    "session-key", Map.of(), null, KEY_VARIABLES);
            answering.join(10_000);
        }
        assertEquals("POST /api/init HTTP/1.1", head.get(0), head.toString());
        assertTrue(head.stream().noneMatch(h -> h.toLowerCase().startsWith("upgrade:")
                || h.toLowerCase().startsWith("http2-settings:")), head.toString());
        assertTrue(head.stream().anyMatch(h -> h.equalsIgnoreCase("x-init-api-key: init-key")), head.toString());
    }
}
