package dev.dockyard.application.remote;

import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import java.util.List;
import java.util.Map;

/**
 * A start request of OpenHands' Remote Runtime API, validated: what its clients send to
 * {@code POST /start}, in Dockyard's words.
 *
 * @param sessionId      the client's session: Dockyard's conversation id, one runtime per session
 * @param image          the image to run, present on the engine
 * @param command        its command (a shell string already wrapped in {@code /bin/sh -c}); empty: the image's
 * @param workingDir     null: the image's
 * @param environment    what the client wants in the process's environment
 * @param resourceFactor 1, 2, 4 or 8 times the default CPUs and memory
 * @param user           {@code uid[:gid]} or null
 * @param fsGroup        or null
 * @param publicBase     where clients reach this control plane (scheme://host:port)
 * @param runtimeClass   one of {@code SandboxIsolation}'s runtime classes, or null: the default runtime
 * @param node           the backend node to run on (Dockyard's extension), or null: placement chooses
 * @param serviceKey     the service key the caller chose (Dockyard's extension, for a control plane that uses
 *                       this one as a remote node), or null: Dockyard makes one
 * @param egress         where the sandbox may connect (Dockyard's extension {@code network}/{@code egress}, as
 *                       {@code sandbox.network} on /api/v1), or null: open
 * @param executorServer how a sandbox of Dockyard's executor starts it (Dockyard's extension
 *                       {@code executor_server}, as {@code sandbox.executorServer} on /api/v1; a control
 *                       plane that uses this one as a remote node sends its runtime's), or null: the node's
 */
public record RemoteStart(String sessionId, String image, List<String> command, String workingDir,
                          Map<String, String> environment, int resourceFactor, String user, Long fsGroup,
                          String publicBase, String runtimeClass, String node, String serviceKey,
                          EgressPolicy egress, ExecutorServer executorServer) {

    public RemoteStart {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
    }

    /** A start of the default egress policy. */
    public RemoteStart(String sessionId, String image, List<String> command, String workingDir,
                       Map<String, String> environment, int resourceFactor, String user, Long fsGroup,
                       String publicBase, String runtimeClass, String node, String serviceKey) {
        this(sessionId, image, command, workingDir, environment, resourceFactor, user, fsGroup, publicBase,
                runtimeClass, node, serviceKey, null, null);
    }

    /** The same start with the egress policy {@code policy}. */
    public RemoteStart withEgress(EgressPolicy policy) {
        return new RemoteStart(sessionId, image, command, workingDir, environment, resourceFactor, user, fsGroup,
                publicBase, runtimeClass, node, serviceKey, policy, executorServer);
    }

    /** The same start, an executor sandbox's server {@code server}. */
    public RemoteStart withExecutorServer(ExecutorServer server) {
        return new RemoteStart(sessionId, image, command, workingDir, environment, resourceFactor, user, fsGroup,
                publicBase, runtimeClass, node, serviceKey, egress, server);
    }

    /** A start whose service key Dockyard makes. */
    public RemoteStart(String sessionId, String image, List<String> command, String workingDir,
                       Map<String, String> environment, int resourceFactor, String user, Long fsGroup,
                       String publicBase, String node) {
        this(sessionId, image, command, workingDir, environment, resourceFactor, user, fsGroup, publicBase, null, node,
                null);
    }

    @Override
    public String toString() {
        // never the environment's values nor the key
        return "RemoteStart[sessionId=" + sessionId + ", image=" + image + ", node=" + node + ", environment="
                + environment.keySet() + ", serviceKey=" + (serviceKey == null ? "made here" : "chosen") + "]";
    }
}
