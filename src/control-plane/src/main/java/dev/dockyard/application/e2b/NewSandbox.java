package dev.dockyard.application.e2b;

import dev.dockyard.backend.EgressPolicy;
import java.util.Map;

/**
 * E2B's {@code POST /sandboxes} (and {@code /v2/sandboxes}) validated, in Dockyard's words.
 *
 * @param template       the template named ({@code templateID}): a warm pool, an image Dockyard knows, or
 *                       {@code base}, Dockyard's default sandbox image
 * @param timeoutSeconds how long it runs before its end ({@code timeout}, at least 1)
 * @param metadata       the caller's key-values, kept with it and filtered on
 * @param environment    {@code envVars}: the environment of every process in it, injected once it is ready
 * @param egress         where it may connect: null for Dockyard's default (open), {@code none} when the
 *                       caller denied internet access
 * @param pauseAtEnd     {@code autoPause}: paused at its end rather than killed
 */
public record NewSandbox(String template, int timeoutSeconds, Map<String, String> metadata,
                         Map<String, String> environment, EgressPolicy egress, boolean pauseAtEnd) {

    public NewSandbox {
        metadata = Map.copyOf(metadata);
        environment = Map.copyOf(environment);
    }

    @Override
    public String toString() {
        // never the environment's values: they may be secrets
        return "NewSandbox[template=" + template + ", timeoutSeconds=" + timeoutSeconds + ", metadata=" + metadata
                + ", environment=" + environment.keySet() + ", egress=" + egress + ", pauseAtEnd=" + pauseAtEnd + "]";
    }
}
