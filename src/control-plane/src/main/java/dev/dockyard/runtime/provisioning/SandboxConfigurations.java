package dev.dockyard.runtime.provisioning;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.config.ServiceUrls;
import dev.dockyard.runtime.RepositorySpec;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a sandbox is told once ready, built from its runtime (agent, LLM settings) and its user's
 * credentials, and pushed through the executor. Held in memory only. A runtime that runs another
 * image's program has no executor to tell: its program gets its environment instead
 * ({@link #programEnvironment}), at its start or at a dormant server's init.
 */
@ApplicationScoped
public class SandboxConfigurations {

    @Inject
    AgentCatalog agents;

    @Inject
    ExecutorClient executors;

    @Inject
    DockyardConfig config;

    /**
     * The variables for the sandbox's shell: the request's own {@code sandbox.env}, then the
     * user's credentials, then Dockyard's (agent and LLM); where names meet, the later wins.
     */
    public SandboxConfiguration of(SandboxRuntime runtime, Map<String, String> credentials) {
        Map<String, String> env = new LinkedHashMap<>(runtime.environment());
        env.putAll(credentials);
        // the repository's credential goes to git's credential helper alone, not to the shell
        String gitCredential = runtime.repository().map(RepositorySpec::credential).orElse(null);
        String gitToken = gitCredential == null ? null : env.remove(gitCredential);
        env.put("DOCKYARD_AGENT", runtime.agent());
        // as OpenHands' runtimes tell their sandboxes (its VS Code plugin builds its paths from it)
        env.put("RUNTIME_ID", runtime.id());
        if (runtime.llmModel() != null) {
            env.put("LLM_MODEL", runtime.llmModel());
        }
        if (runtime.llmBaseUrl() != null) {
            env.put("LLM_BASE_URL", runtime.llmBaseUrl());
        }
        if (runtime.llmApiKey() != null) {
            env.put("LLM_API_KEY", runtime.llmApiKey());
        }
        String fileAccess = agents.find(runtime.agent()).map(AgentProfile::fileAccess).orElse("workspace");
        String gitScope = runtime.repository().map(RepositorySpec::credentialScope).orElse(null);
        return new SandboxConfiguration(env, fileAccess, gitToken, gitToken == null ? null : gitScope);
    }

    public void push(URI executor, SandboxRuntime runtime, Map<String, String> credentials) {
        SandboxConfiguration configuration = of(runtime, credentials);
        executors.configure(executor, runtime.sessionKey(), configuration);
    }

    /** The environment of a runtime's own program: the client's, with its key and where it is reached. */
    public Map<String, String> programEnvironment(SandboxRuntime runtime, SandboxProgram program) {
        Map<String, String> environment = new LinkedHashMap<>(program.environment());
        // the program's own server checks its clients' key: the sandbox's key, which the proxy puts
        // in place of the service key clients hold (see dev.dockyard.proxy)
        for (String variable : config.programSessionKeyVariables()) {
            environment.put(variable, runtime.sessionKey());
        }
        environment.put("RUNTIME_ID", runtime.id());
        if (program.publicBase() != null) {
            // OpenHands' servers build their own links from these (VS Code serves under its path)
            environment.putIfAbsent("RUNTIME_URL", ServiceUrls.runtimeUrl(program.publicBase(), runtime.id()));
            environment.putIfAbsent("OH_VSCODE_BASE_PATH", "/" + runtime.id() + "/vscode");
        }
        return environment;
    }
}
