package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a remote node's settings risk, said once at startup; and how its retries fit its call timeout. */
class RemoteNodeTest {

    private static final String KEY = "dy_node_key_0123456789abcdefghijklmnop";

    private static RemoteNodeConfig node(String url, int callTimeout) {
        return new RemoteNodeConfig("remote1", URI.create(url), RemoteKey.given(KEY), Duration.ofSeconds(30),
                Duration.ofSeconds(callTimeout), "cp-a");
    }

    @Test
    void shouldWarnOfPlainHttpToAnotherHostNamingTheNodeButNeverTheKey() {
        List<String> warnings = RemoteNode.warnings(node("http://10.0.0.5:9080", 30), RemoteCalls.MAX_RETRIES);

        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("Node 'remote1'"), warnings.get(0));
        assertTrue(warnings.get(0).contains("in clear"), warnings.get(0));
        assertFalse(warnings.get(0).contains(KEY), warnings.get(0));
    }

    @Test
    void shouldNotWarnOfHttpsOrOfThisMachinesLoopback() {
        for (String url : List.of("https://dockyard.example:9443", "http://127.0.0.1:19381", "http://127.8.9.10",
                "http://localhost:9080/base", "http://[::1]:9080")) {
            assertEquals(List.of(), RemoteNode.warnings(node(url, 30), RemoteCalls.MAX_RETRIES), url);
        }
        for (String url : List.of("http://dockyard.example", "http://localhost.example", "http://128.0.0.1",
                "http://[::2]", "http://127.0.0.1.example")) {
            assertFalse(RemoteNode.loopback(URI.create(url)), url);
        }
    }

    @Test
    void shouldRetryACallThatTimedOutWithinTheRetriesBound() {
        // the defaults: a 30 s call-timeout leaves room for all three retries
        assertEquals(3, RemoteCalls.retriesAfterTimeout(RemoteCalls.MAX_RETRIES,
                Duration.ofSeconds(RemoteCalls.MAX_DURATION_S), Duration.ofSeconds(30)));
        // what it was: a 20 s bound never retried a call that took its 30 s
        assertEquals(0, RemoteCalls.retriesAfterTimeout(3, Duration.ofSeconds(20), Duration.ofSeconds(30)));
        assertEquals(2, RemoteCalls.retriesAfterTimeout(3, Duration.ofSeconds(150), Duration.ofSeconds(60)));
    }

    @Test
    void shouldWarnOfACallTimeoutTooLongForTheRetries() {
        List<String> warnings = RemoteNode.warnings(node("https://dockyard.example", 60), 2);

        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("retried 2 time(s), not 3"), warnings.get(0));
        assertTrue(warnings.get(0).contains("dockyard.node.remote1.call-timeout"), warnings.get(0));
    }
}
