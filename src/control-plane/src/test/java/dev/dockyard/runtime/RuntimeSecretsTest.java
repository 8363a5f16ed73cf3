package dev.dockyard.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.LlmSettings;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeSecretsTest {

    private final RuntimeSecrets secrets = new RuntimeSecrets();

    @Test
    void shouldRedactEveryFormOfASecretAndLeaveShortValuesAlone() {
        String secret = "s3cr3t/value+x";
        String message = "token " + secret + " url " + "s3cr3t%2Fvalue%2Bx" + " b64 "
                + Base64.getEncoder().withoutPadding().encodeToString(secret.getBytes(StandardCharsets.UTF_8))
                + " exit 1";

        String redacted = RuntimeSecrets.redact(message, List.of(secret, "1"));

        assertEquals("token [redacted] url [redacted] b64 [redacted] exit 1", redacted);
    }

    @Test
    void shouldRedactALongerSecretWholeBeforeAShorterOneInsideIt() {
        assertEquals("[redacted] and [redacted]",
                RuntimeSecrets.redact("abcdef-123456 and abcdef", List.of("abcdef", "abcdef-123456")));
    }

    @Test
    void shouldRedactWhatTheRowAndTheProvisioningKnow() {
        SandboxRuntime runtime = new SandboxRuntime("conv", "alice", "docker", "img", 1, 512, 60, Instant.now());
        runtime.configuredFor("CodeActAgent", new LlmSettings("gpt", null, "sk-llm-canary"));
        runtime.withEnvironment(Map.of("API_TOKEN", "env-canary-value"));
        secrets.remember(runtime.id(), List.of("provider-canary-token"));

        String redacted = secrets.redact(runtime, "setup printed sk-llm-canary env-canary-value "
                + "provider-canary-token " + runtime.sessionKey());

        assertEquals("setup printed [redacted] [redacted] [redacted] [redacted]", redacted);
        secrets.forget(runtime.id());
        assertTrue(secrets.redact(runtime.id(), "provider-canary-token").contains("provider-canary-token"));
        assertFalse(secrets.redact(runtime, "sk-llm-canary").contains("canary"), "the row's own secrets stay known");
    }
}
