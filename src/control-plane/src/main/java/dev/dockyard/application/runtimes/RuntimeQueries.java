package dev.dockyard.application.runtimes;

import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * What the interface ring reads about runtimes, so that it reaches the runtime table only through
 * the application: one runtime, the runtimes of a user (or everyone's) filtered as a list asks, and
 * a runtime's transitions for its event stream. Who may see which runtime is the caller's business
 * (an id the caller may not see answers exactly like an unknown one).
 */
@ApplicationScoped
public class RuntimeQueries {

    @Inject
    RuntimeRepository runtimes;

    public RuntimeQueries() {
    }

    /** Over {@code runtimes}, for tests and code outside CDI. */
    public RuntimeQueries(RuntimeRepository runtimes) {
        this.runtimes = runtimes;
    }

    public Optional<SandboxRuntime> find(String id) {
        return runtimes.find(id);
    }

    /** Runtimes of {@code userId} (null: every user's), of a conversation and in a status when they are given. */
    public List<SandboxRuntime> list(String userId, String conversationId, RuntimeStatus status) {
        return runtimes.list(userId, conversationId, status);
    }

    /** The runtime's transitions, oldest first. */
    public List<StatusChange> history(String runtimeId) {
        return runtimes.history(runtimeId);
    }
}
