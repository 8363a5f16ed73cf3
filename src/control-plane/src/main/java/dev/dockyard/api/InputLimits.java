package dev.dockyard.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How much of a request body the API reads and how deep its JSON may nest (MicroProfile Config,
 * docs/configuration.md). Past the size the answer is 413 before the rest is read; past the depth
 * a 400, before any object is built (a 20,000-deep body would otherwise exhaust the parser's stack).
 */
@ApplicationScoped
public class InputLimits {

    /** Defaults for code that runs without MicroProfile Config (unit tests). */
    public static final int DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
    public static final int DEFAULT_MAX_DEPTH = 32;

    @Inject
    @ConfigProperty(name = "dockyard.api.max-body-bytes", defaultValue = "" + DEFAULT_MAX_BODY_BYTES)
    int maxBodyBytes;

    @Inject
    @ConfigProperty(name = "dockyard.api.max-json-depth", defaultValue = "" + DEFAULT_MAX_DEPTH)
    int maxDepth;

    public InputLimits() {
    }

    InputLimits(int maxBodyBytes, int maxDepth) {
        this.maxBodyBytes = maxBodyBytes;
        this.maxDepth = maxDepth;
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    public int maxDepth() {
        return maxDepth;
    }
}
