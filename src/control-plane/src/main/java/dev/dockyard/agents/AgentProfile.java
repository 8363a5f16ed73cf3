package dev.dockyard.agents;

import dev.dockyard.security.SecurityPolicy;
import java.util.List;

/**
 * An agent as configured: its name, its default LLM settings and its security policy
 * ({@code fileAccess}: "workspace" confines file actions to the workspace, "anywhere" does not;
 * {@code security}: which rated actions need confirmation or are refused); {@code enableAutoLint}
 * is its runtimes' default for {@code sandbox.enableAutoLint} (OpenHands' enable_auto_lint).
 */
public record AgentProfile(String name, LlmSettings llmDefaults, String fileAccess,
                           SecurityPolicy security, List<String> plugins, boolean enableAutoLint) {

    public AgentProfile {
        plugins = plugins == null ? List.of() : List.copyOf(plugins);
    }

    /** An agent whose runtimes do not lint edits unless a request asks. */
    public AgentProfile(String name, LlmSettings llmDefaults, String fileAccess, SecurityPolicy security,
                        List<String> plugins) {
        this(name, llmDefaults, fileAccess, security, plugins, false);
    }
}
