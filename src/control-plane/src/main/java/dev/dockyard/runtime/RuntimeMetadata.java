package dev.dockyard.runtime;

import java.util.Map;

/**
 * What a client says about a runtime for its own use, kept with it and answered back: the template
 * it was asked for by (E2B's {@code templateID}: a pool's name or an image) and key-value metadata
 * (E2B's {@code metadata}, which lists filter on). Runtimes of Dockyard's own API have none.
 *
 * @param template the name the runtime was asked for by, or null
 * @param values   the caller's key-values (not secrets: they are listed and filtered on)
 */
public record RuntimeMetadata(String template, Map<String, String> values) {

    /** A runtime nobody described. */
    public static final RuntimeMetadata NONE = new RuntimeMetadata(null, Map.of());

    public RuntimeMetadata {
        values = Map.copyOf(values);
    }
}
