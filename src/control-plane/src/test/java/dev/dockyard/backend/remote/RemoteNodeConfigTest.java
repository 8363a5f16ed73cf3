package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.NodeType;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dockyard.node.<name>.* of a remote node, as MP Config gives it. */
class RemoteNodeConfigTest {

    private static final String KEY = "dy_user_0123456789abcdefghijklmnopqrstuv";

    private static Config config(Map<String, String> values) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getOptionalValue")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Optional<String> value = Optional.ofNullable(values.get((String) args[0]));
                    return args[1] == Integer.class ? value.map(Integer::valueOf) : value;
                });
    }

    @Test
    void shouldReadARemoteNodeWithItsKeyFromAFile(@TempDir Path dir) throws Exception {
        Path keyFile = dir.resolve("key");
        Files.writeString(keyFile, KEY + "\n");
        Config config = config(Map.of("dockyard.node.remote1.type", "remote",
                "dockyard.node.remote1.url", "http://10.0.0.5:9080/",
                "dockyard.node.remote1.api-key-file", keyFile.toString(),
                "dockyard.node.remote1.disconnect-after", "12"));

        assertEquals(NodeType.REMOTE, NodeType.of(config, "remote1"));
        RemoteNodeConfig node = RemoteNodeConfig.read(config, "remote1", "cp-a");
        assertEquals(URI.create("http://10.0.0.5:9080"), node.url());
        assertEquals(KEY, node.apiKey());
        assertEquals(Duration.ofSeconds(12), node.disconnectAfter());
        assertEquals(Duration.ofSeconds(30), node.callTimeout());
        assertEquals("cp-a", node.instance());
        assertFalse(node.toString().contains(KEY), node.toString());
    }

    @Test
    void shouldSendARotatedKeyFromTheNextCallOnAndKeepTheLastOneWhileTheFileIsGone(@TempDir Path dir)
            throws Exception {
        Path keyFile = dir.resolve("key");
        Files.writeString(keyFile, KEY);
        RemoteNodeConfig node = RemoteNodeConfig.read(config(Map.of("dockyard.node.r.url", "http://h:1",
                "dockyard.node.r.api-key-file", keyFile.toString())), "r", "cp-a");
        assertEquals(KEY, node.apiKey());

        String rotated = "dy_user_rotated0123456789abcdefghijklmnop";
        Files.writeString(keyFile, rotated + "\n");
        assertEquals(rotated, node.apiKey());
        Files.delete(keyFile);
        assertEquals(rotated, node.apiKey(), "the last key read while the file is being replaced");
        Files.writeString(keyFile, "   ");
        assertEquals(rotated, node.apiKey(), "an empty file is no key");
        Files.writeString(keyFile, KEY);
        assertEquals(KEY, node.apiKey());
        // a key of the same length put in place whole, as a mounted Secret's update does: a new file
        String sameLength = KEY.replace('0', '9');
        Path next = dir.resolve("key.next");
        Files.writeString(next, sameLength);
        Files.move(next, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertEquals(sameLength, node.apiKey());
        assertFalse(node.toString().contains(KEY), node.toString());
    }

    @Test
    void shouldPreferTheKeyGivenInConfig() {
        RemoteNodeConfig node = RemoteNodeConfig.read(config(Map.of("dockyard.node.r.url", "https://cp.example:8443",
                "dockyard.node.r.api-key", KEY, "dockyard.node.r.api-key-file", "/nonexistent")), "r", "cp-a");
        assertEquals(KEY, node.apiKey());
    }

    @Test
    void shouldRefuseANodeWithoutUrlOrKeyOrWithCredentialsInItsUrlNamingTheKey() {
        IllegalStateException noUrl = assertThrows(IllegalStateException.class,
                () -> RemoteNodeConfig.read(config(Map.of("dockyard.node.r.api-key", KEY)), "r", "cp"));
        assertTrue(noUrl.getMessage().contains("dockyard.node.r.url"), noUrl.getMessage());
        IllegalStateException noKey = assertThrows(IllegalStateException.class,
                () -> RemoteNodeConfig.read(config(Map.of("dockyard.node.r.url", "http://h:1")), "r", "cp"));
        assertTrue(noKey.getMessage().contains("api-key-file"), noKey.getMessage());
        IllegalStateException userInfo = assertThrows(IllegalStateException.class,
                () -> RemoteNodeConfig.read(config(Map.of("dockyard.node.r.url", "http://u:p@h:1",
                        "dockyard.node.r.api-key", KEY)), "r", "cp"));
        assertTrue(userInfo.getMessage().contains("no query and no credentials"), userInfo.getMessage());
        IllegalStateException missingFile = assertThrows(IllegalStateException.class,
                () -> RemoteNodeConfig.read(config(Map.of("dockyard.node.r.url", "http://h:1",
                        "dockyard.node.r.api-key-file", "/nonexistent/key")), "r", "cp"));
        assertTrue(missingFile.getMessage().contains("cannot read"), missingFile.getMessage());
    }
}
