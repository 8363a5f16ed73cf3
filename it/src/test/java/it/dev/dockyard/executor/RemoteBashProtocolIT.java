package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import it.dev.dockyard.support.RemoteNodeFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link BashProtocolIT} on a runtime of a remote node: the shared control plane provisions it
 * on {@code remote2}, another control plane started for these suites ({@link RemoteNodeFixture}), and
 * the suite reaches it through the first control plane's proxy, then the second's. Same assertions,
 * the raw-socket ones too (they post under the executor URI's path, a proxied runtime's), but for
 * what the proxy decides, not the remote node: a wrong key is answered by the proxy (401,
 * docs/user-guide.md "Service URLs") before any executor sees it.
 */
@SandboxTest.OnNode(RemoteNodeFixture.NODE)
@ExtendWith(RemoteNodeFixture.Lifecycle.class)
class RemoteBashProtocolIT extends BashProtocolIT {

    /** No key reaches the executor's own refusal; a wrong one is the proxy's 401 (docs/user-guide.md "Service URLs"). */
    @Test
    @Override
    void shouldRefuseWrongOrMissingSessionKey() {
        HttpResponse<String> noKey = sandbox.send(HttpRequest.newBuilder(sandbox.executor.resolve("ready")));
        assertEquals(403, noKey.statusCode());
        assertEquals("{\"detail\":\"Invalid API Key\"}", noKey.body());
        HttpResponse<String> wrong = sandbox.send(HttpRequest.newBuilder(
                sandbox.executor.resolve("execute_action")).header("X-Session-API-Key", "nope")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals(401, wrong.statusCode());
    }
}
