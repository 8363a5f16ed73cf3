package dev.dockyard.agents;

import dev.dockyard.security.SecurityPolicy;
import java.util.List;

/**
 * An agent as configured: its name, its default LLM settings and its security policy
 * ({@code fileAccess}: "workspace" confines file actions to the workspace, "anywhere" does not;
 * {@code security}: which rated actions need confirmation or are refused).
 */
public record AgentProfile(String name, LlmSettings llmDefaults, String fileAccess,
                           SecurityPolicy security, List<String> plugins) {

    public AgentProfile {
        plugins = plugins == null ? List.of() : List.copyOf(plugins);
    }
}
