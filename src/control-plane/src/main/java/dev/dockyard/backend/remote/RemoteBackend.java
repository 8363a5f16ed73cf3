package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The backend of a remote node (see the package): each sandbox is a runtime of the remote control
 * plane, named by its session {@code <instance>:<sandbox name>}; its executor is the remote's
 * service URL of that runtime, keyed by the local runtime's own session key.
 */
public class RemoteBackend implements RuntimeBackend {

    /** Local sandbox names are the runtime id behind this prefix (SandboxRuntime's container name). */
    static final String SANDBOX_PREFIX = "dockyard-";

    private final RemoteNodeConfig settings;
    private final RemoteControlPlane remote;
    private final RemoteCalls calls;
    /** The executor's port: the one port of a sandbox the remote's service URL reaches. */
    private final int executorPort;
    /** Sandbox name → remote runtime id, as learnt; the remote is asked for a name not here. */
    private final Map<String, String> remoteIds = new ConcurrentHashMap<>();

    public RemoteBackend(RemoteNodeConfig settings, RemoteControlPlane remote, RemoteCalls calls, int executorPort) {
        this.settings = settings;
        this.remote = remote;
        this.calls = calls;
        this.executorPort = executorPort;
    }

    @Override
    public String name() {
        return "remote";
    }

    @Override
    public void ping() {
        remote.ping();
    }

    /** The session of a sandbox there. */
    String session(String sandboxName) {
        return settings.instance() + ":" + sandboxName;
    }

    @Override
    public String create(SandboxSpec spec) {
        if (spec.process() != null) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: it runs Dockyard's executor "
                    + "only, not an image's own program");
        }
        if (spec.workspace() != null && spec.workspace().kind() != SandboxWorkspace.Kind.FRESH) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: a kept workspace or a "
                    + "snapshot's cannot be carried there");
        }
        if (!spec.isolation().isDefault()) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: its runtimes get its "
                    + "own default confinement");
        }
        String session = session(spec.name());
        // the session makes a repeated start answer the same runtime, and the Idempotency-Key (the
        // session) makes a retry after a lost answer replay it: never a second sandbox
        String id = calls.idempotent(() -> remote.start(session, spec.image(), spec.sessionKey()));
        remoteIds.put(spec.name(), id);
        return id;
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        return endpoint(sandboxName, executorPort);
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        String id = require(sandboxName);
        calls.idempotent(() -> remote.resume(id));
        return endpoint(sandboxName, executorPort);
    }

    /**
     * The remote's service URL of the runtime: its proxy takes the executor protocol there. Other
     * ports of the sandbox (the runtime API's work ports) are not published through it: absent.
     */
    @Override
    public URI endpoint(String sandboxName, int port) {
        if (port != executorPort) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: only the executor's port "
                    + "is reached there, not " + port);
        }
        return URI.create(remote.url() + "/" + require(sandboxName));
    }

    @Override
    public void settle(String sandboxName, double cpus) {
        // the remote sizes its runtimes by its own defaults
    }

    @Override
    public SandboxState inspect(String sandboxName) {
        Optional<String> id = remoteId(sandboxName);
        if (id.isEmpty()) {
            return SandboxState.missing();
        }
        return calls.idempotent(() -> remote.runtime(id.get())).map(RemoteBackend::state).orElse(SandboxState.missing());
    }

    /** A remote status as a sandbox's phase: what it does there, whatever the local record says. */
    static SandboxState state(RemoteRuntime runtime) {
        String message = runtime.statusMessage() == null ? "" : "remote runtime " + runtime.id() + " is "
                + runtime.status() + ": " + runtime.statusMessage();
        return switch (runtime.status()) {
            case "STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED", "READY" ->
                    new SandboxState(SandboxState.Phase.RUNNING, null, "");
            // hibernated there: asleep, woken by a resume like a frozen one
            case "PAUSED", "HIBERNATED" -> new SandboxState(SandboxState.Phase.PAUSED, null, "");
            default -> new SandboxState(SandboxState.Phase.EXITED, null, message);
        };
    }

    @Override
    public void pause(String sandboxName) {
        String id = require(sandboxName);
        calls.idempotent(() -> remote.pause(id));
    }

    @Override
    public void unpause(String sandboxName) {
        String id = require(sandboxName);
        calls.idempotent(() -> remote.resume(id));
    }

    @Override
    public void stop(String sandboxName) {
        String id = require(sandboxName);
        RemoteRuntime now = calls.idempotent(() -> remote.pause(id));
        if (!"HIBERNATED".equals(now.status())) {
            calls.idempotent(() -> remote.hibernate(id));
        }
    }

    /**
     * Before work reaches the sandbox: a remote runtime its own control plane paused or hibernated
     * (its idle lifecycle, an admin there) is resumed first.
     */
    @Override
    public void awaken(String sandboxName) {
        Optional<String> id = remoteId(sandboxName);
        if (id.isEmpty()) {
            return;
        }
        Optional<RemoteRuntime> now = calls.idempotent(() -> remote.runtime(id.get()));
        if (now.isPresent() && ("PAUSED".equals(now.get().status()) || "HIBERNATED".equals(now.get().status()))) {
            calls.idempotent(() -> remote.resume(id.get()));
        }
    }

    @Override
    public Optional<Duration> disconnectAfter() {
        return Optional.of(settings.disconnectAfter());
    }

    /**
     * The key's user's live runtimes there whose session is this control plane's; the remote's
     * list is complete or the call fails (and the caller then acts on nothing).
     */
    @Override
    public List<ManagedSandbox> listManaged(String controlPlane) {
        String prefix = controlPlane + ":";
        List<ManagedSandbox> sandboxes = new ArrayList<>();
        for (RemoteRuntime runtime : calls.idempotent(remote::liveRuntimes)) {
            if (runtime.session() == null || !runtime.session().startsWith(prefix) || !runtime.live()) {
                continue;
            }
            String name = runtime.session().substring(prefix.length());
            remoteIds.put(name, runtime.id());
            String runtimeId = name.startsWith(SANDBOX_PREFIX) ? name.substring(SANDBOX_PREFIX.length()) : null;
            sandboxes.add(new ManagedSandbox(name, runtimeId, runtime.session(), runtime.createdAt(),
                    state(runtime).phase()));
        }
        return sandboxes;
    }

    @Override
    public InputStream archive(String sandboxName, String path) {
        throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: workspaces are not archived "
                + "across its API (files go through the executor's transfers)");
    }

    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: workspaces are not restored "
                + "across its API");
    }

    @Override
    public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: it runs no image's own program");
    }

    @Override
    public void remove(String sandboxName) {
        Optional<String> id = remoteId(sandboxName);
        if (id.isPresent()) {
            calls.idempotent(() -> {
                remote.delete(id.get());
                return null;
            });
        }
        remoteIds.remove(sandboxName);
    }

    private Optional<String> remoteId(String sandboxName) {
        String known = remoteIds.get(sandboxName);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<String> found = calls.idempotent(() -> remote.session(session(sandboxName)));
        found.ifPresent(id -> remoteIds.put(sandboxName, id));
        return found;
    }

    private String require(String sandboxName) {
        return remoteId(sandboxName).orElseThrow(() -> new BackendException("node '" + settings.node()
                + "' has no runtime for sandbox " + sandboxName));
    }
}
