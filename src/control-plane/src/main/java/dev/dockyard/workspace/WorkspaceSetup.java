package dev.dockyard.workspace;

import dev.dockyard.backend.BackendException;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RepositorySpec;
import dev.dockyard.runtime.executor.ExecutorClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.time.Duration;

/**
 * Prepares a ready sandbox's workspace from its repository: clone (git asks the sandbox's
 * credential helper for the token), switch to a new branch if asked, then run the repository's
 * own setup script ({@code .openhands/setup.sh}, else {@code .dockyard/setup.sh}) with a timeout.
 * Each step is one command on the executor outside the agent's shell; a failing step fails the
 * provisioning with git's or the script's own output.
 */
@ApplicationScoped
public class WorkspaceSetup {

    static final String WORKSPACE = "/workspace";

    @Inject
    ExecutorClient executors;

    @Inject
    DockyardConfig config;

    public void prepare(URI executor, String sessionKey, RepositorySpec repository) {
        String dir = repository.directory(WORKSPACE);
        run(executor, sessionKey, "clone " + repository.url(), "GIT_TERMINAL_PROMPT=0 git clone --quiet "
                + (repository.branch() == null ? "" : "--branch " + quote(repository.branch()) + " ")
                + "-- " + quote(repository.url()) + " " + quote(dir), Duration.ofMinutes(10));
        if (repository.newBranch() != null) {
            run(executor, sessionKey, "branch " + repository.newBranch(), "git -C " + quote(dir) + " checkout -q -b "
                    + quote(repository.newBranch()), Duration.ofSeconds(60));
        }
        // the setup script runs with the runtime's configuration, as the agent's shell would
        run(executor, sessionKey, "setup script", "cd " + quote(dir) + " && for s in .openhands/setup.sh "
                + ".dockyard/setup.sh; do if [ -f \"$s\" ]; then . /opt/dockyard/run/env.sh 2>/dev/null; "
                + "exec bash \"$s\"; fi; done", config.repositorySetupTimeout());
    }

    /** Runs one command (static: not in the agent's shell); fails with its output unless it exits 0. */
    String run(URI executor, String sessionKey, String what, String command, Duration timeout) {
        JsonObject action = Jsonp.createObjectBuilder().add("action", "run").add("timeout", timeout.toSeconds())
                .add("args", Jsonp.createObjectBuilder().add("command", command).add("is_static", true)
                        .add("cwd", WORKSPACE).add("hidden", true)).build();
        ExecutorClient.ExecutorAnswer answer;
        try {
            answer = executors.execute(executor, sessionKey, action, timeout.plusSeconds(30), null);
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw new BackendException(what + ": the executor did not answer: " + e.getMessage());
        }
        if (answer.status() != 200) {
            throw new BackendException(what + ": the executor answered " + answer.status());
        }
        JsonObject observation;
        try (var reader = Jsonp.createReader(new StringReader(answer.body()))) {
            observation = reader.readObject();
        } catch (JsonException | ClassCastException e) {
            throw new BackendException(what + ": the executor's answer is not an observation");
        }
        String content = observation.getString("content", "");
        JsonObject extras = observation.get("extras") instanceof JsonObject x ? x : JsonObject.EMPTY_JSON_OBJECT;
        int exit = extras.get("metadata") instanceof JsonObject metadata ? metadata.getInt("exit_code", -1) : -1;
        if (exit != 0) {
            String tail = content.length() > 1500 ? content.substring(content.length() - 1500) : content;
            throw new BackendException(what + " failed (exit code " + exit + "): " + tail.strip());
        }
        return content;
    }

    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
