package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The backend of a remote node (see the package): each sandbox is a runtime of the remote control
 * plane, named by its session {@code <instance>:<sandbox name>}; its executor is the remote's
 * service URL of that runtime, keyed by the local runtime's own session key.
 */
public class RemoteBackend implements RuntimeBackend {

    private static final Logger LOG = Logger.getLogger(RemoteBackend.class.getName());

    /** Local sandbox names are the runtime id behind this prefix (SandboxRuntime's container name). */
    static final String SANDBOX_PREFIX = "dockyard-";
    /** The remote's statuses of a runtime it is still bringing up. */
    static final Set<String> STARTING = Set.of("STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED");
    /** The remote's statuses of a runtime asleep there: a resume wakes it. */
    static final Set<String> ASLEEP = Set.of("PAUSED", "HIBERNATED");
    /** How often a start is asked about once its event stream broke. */
    static final Duration POLL_EVERY = Duration.ofSeconds(1);

    private final RemoteNodeConfig settings;
    private final RemoteControlPlane remote;
    private final RemoteCalls calls;
    /** The executor's port: the one port of a sandbox the remote's service URL reaches. */
    private final int executorPort;
    /** The numeric owner of the files in a workspace archive taken here (the Docker sandbox user). */
    private final int archiveOwner;
    /** Sandbox name → remote runtime id, as learnt; the remote is asked for a name not here. */
    private final Map<String, String> remoteIds = new ConcurrentHashMap<>();

    public RemoteBackend(RemoteNodeConfig settings, RemoteControlPlane remote, RemoteCalls calls, int executorPort,
                         int archiveOwner) {
        this.settings = settings;
        this.remote = remote;
        this.calls = calls;
        this.executorPort = executorPort;
        this.archiveOwner = archiveOwner;
    }

    @Override
    public String name() {
        return "remote";
    }

    @Override
    public void ping() {
        remote.ping();
    }

    @Override
    public Optional<Instant> unansweredSince() {
        return remote.unansweredSince();
    }

    /**
     * The remote's idle lifecycle, or an admin there, may pause or hibernate its runtimes; they count
     * as disconnected once the remote has not answered for the node's disconnect-after.
     */
    @Override
    public BackendCapabilities capabilities() {
        return BackendCapabilities.ENGINE.withAPlaneOfItsOwn(settings.disconnectAfter());
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
        // its executor server goes along: the runtime's, which the remote's own node setting must not change
        String id = calls.idempotent(() -> remote.start(session, spec.image(), spec.sessionKey(),
                spec.executorServer()));
        remoteIds.put(spec.name(), id);
        return id;
    }

    /**
     * Follows the remote runtime's events (its own stream, history first) until it is READY there,
     * so nothing polls its service URL while the remote builds its image and boots it; a status
     * that ends it there (ERROR, STOPPED, disconnected) fails the start at once with the remote's
     * message. When the stream cannot be had or breaks, its status is asked every
     * {@link #POLL_EVERY} instead. One stream per runtime being brought up, on the provisioning
     * thread, closed when this returns.
     */
    @Override
    public void awaitRunning(String sandboxName, Duration timeout) {
        String id = require(sandboxName);
        Instant deadline = remote.now().plus(timeout);
        RemoteRuntime settled = remote.follow(id, deadline, r -> !STARTING.contains(r.status()))
                .orElseGet(() -> poll(id, deadline, timeout));
        if ("READY".equals(settled.status())) {
            return;
        }
        if (ASLEEP.contains(settled.status())) {
            // paused there before this side saw it READY (its admin): it runs once resumed
            RemoteRuntime resumed = calls.idempotent(() -> remote.resume(id));
            if ("READY".equals(resumed.status())) {
                return;
            }
            settled = resumed;
        }
        throw new BackendException("remote node '" + settings.node() + "': its runtime " + id + " is "
                + settled.status() + " there" + (settled.statusMessage() == null || settled.statusMessage().isBlank()
                ? "" : ": " + settled.statusMessage()));
    }

    /** The start's status asked until it is no longer starting; a deadline passed is a failure naming the last. */
    private RemoteRuntime poll(String id, Instant deadline, Duration timeout) {
        while (true) {
            RemoteRuntime now = calls.idempotent(() -> remote.runtime(id)).orElseThrow(() -> new BackendException(
                    "remote node '" + settings.node() + "' no longer has runtime " + id));
            if (!STARTING.contains(now.status())) {
                return now;
            }
            Duration left = Duration.between(remote.now(), deadline);
            if (left.isNegative() || left.isZero()) {
                throw new BackendException("remote node '" + settings.node() + "': its runtime " + id + " was not READY "
                        + "within " + timeout.toSeconds() + " s (it is " + now.status() + " there)");
            }
            try {
                Thread.sleep(Math.min(POLL_EVERY.toMillis(), left.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendException("interrupted while waiting for runtime " + id + " on remote node '"
                        + settings.node() + "'", e);
            }
        }
    }

    @Override
    public URI start(String sandboxName, int executorPort) {
        return endpoint(sandboxName, executorPort);
    }

    @Override
    public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        String id = require(sandboxName);
        calls.idempotent(() -> remote.resume(id));
        remote.forgetServiceUrl(id); // the remote may have been restarted with other settings meanwhile
        return endpoint(sandboxName, executorPort);
    }

    /**
     * The remote's service URL of the runtime (on its services' port): its proxy takes the executor protocol there. Other
     * ports of the sandbox (the runtime API's work ports) are not published through it: absent.
     */
    @Override
    public URI endpoint(String sandboxName, int port) {
        if (port != executorPort) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: only the executor's port "
                    + "is reached there, not " + port);
        }
        String id = require(sandboxName);
        return calls.idempotent(() -> remote.serviceUrl(id));
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
     * Before work that cannot be sent twice (an upload's body): a remote runtime its own control
     * plane paused or hibernated (its idle lifecycle, an admin there) is resumed first. One call
     * to the remote; actions do without it ({@link #awakenAfterRefusal}).
     */
    @Override
    public void awaken(String sandboxName) {
        Optional<String> id = remoteId(sandboxName);
        if (id.isEmpty()) {
            return;
        }
        Optional<RemoteRuntime> now = calls.idempotent(() -> remote.runtime(id.get()));
        if (now.isPresent() && ASLEEP.contains(now.get().status())) {
            calls.idempotent(() -> remote.resume(id.get()));
        }
    }

    /**
     * The remote's proxy refuses work for a runtime paused there with a 503 before anything
     * reaches the sandbox: the runtime is resumed if it is asleep there, and the work may be sent
     * once more if it is READY now (a 503 never means the work was done: the executor's own is
     * "not started yet").
     */
    @Override
    public boolean awakenAfterRefusal(String sandboxName) {
        Optional<String> id = remoteId(sandboxName);
        if (id.isEmpty()) {
            return false;
        }
        Optional<RemoteRuntime> now = calls.idempotent(() -> remote.runtime(id.get()));
        if (now.isEmpty()) {
            return false;
        }
        if (ASLEEP.contains(now.get().status())) {
            return "READY".equals(calls.idempotent(() -> remote.resume(id.get())).status());
        }
        return "READY".equals(now.get().status());
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

    /**
     * The contents of a directory of the runtime ({@code dir/.}, what a migration asks for), as a
     * tar: the remote's executor zips it (its download through the remote's API), and the zip,
     * spooled to a temporary file, becomes the tar as it is read ({@link WorkspaceArchives}): files
     * and directories with their permission bits, owned by the sandbox user. A runtime asleep there
     * (a migration pauses its source first) is resumed for the download and paused again.
     */
    @Override
    public InputStream archive(String sandboxName, String path) {
        if (!path.startsWith("/") || !path.endsWith("/.")) {
            throw new BackendException("node '" + settings.node() + "' is a remote Dockyard: it archives a "
                    + "directory's contents (dir/.), not " + path);
        }
        String id = require(sandboxName);
        String directory = path.length() == 2 ? "/" : path.substring(0, path.length() - 2);
        boolean asleep = calls.idempotent(() -> remote.runtime(id)).map(r -> ASLEEP.contains(r.status()))
                .orElseThrow(() -> new BackendException("remote node '" + settings.node() + "' no longer has runtime "
                        + id));
        Path zip = null;
        try {
            zip = Files.createTempFile("dockyard-remote-archive-", ".zip");
            if (asleep) {
                calls.idempotent(() -> remote.resume(id));
            }
            Path into = zip;
            calls.idempotent(() -> {
                remote.download(id, directory, into);
                return null;
            });
            if (asleep) {
                // as the migration left it: frozen until it settles
                calls.idempotent(() -> remote.pause(id));
            }
            WorkspaceArchives.Skipped skipped = new WorkspaceArchives.Skipped();
            InputStream tar = WorkspaceArchives.tarOf(zip, archiveOwner, skipped);
            return new FilterInputStream(tar) {
                @Override
                public void close() throws IOException {
                    super.close();
                    if (skipped.entries() > 0) {
                        LOG.info("Node '" + settings.node() + "': the archive of " + path + " of " + sandboxName
                                + " left out " + skipped);
                    }
                }
            };
        } catch (IOException e) {
            deleteQuietly(zip);
            throw new BackendException("could not archive " + path + " of '" + sandboxName + "' on node '"
                    + settings.node() + "': " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(zip);
            throw e;
        }
    }

    /**
     * Unpacks a tar into {@code directory} of the runtime, which must be READY there (a migration
     * waits for it, {@link #awaitRunning}): the tar becomes a zip as it is uploaded through the
     * remote's API, whose executor unpacks it with the permission bits; links, devices and owners
     * are not carried (the executor's upload never makes a link; the files are its user's). Sent
     * once: the tar is read as it goes, so a lost answer is not retried.
     */
    @Override
    public void restore(String sandboxName, String directory, InputStream tar) {
        if (!directory.startsWith("/")) {
            throw new BackendException("node '" + settings.node() + "': " + directory + " is not an absolute path");
        }
        String id = require(sandboxName);
        WorkspaceArchives.Skipped skipped = new WorkspaceArchives.Skipped();
        try (InputStream zip = WorkspaceArchives.zipOf(tar, skipped)) {
            calls.once(() -> {
                remote.upload(id, directory, zip);
                return null;
            });
        } catch (IOException e) {
            throw new BackendException("could not unpack into " + directory + " of '" + sandboxName + "' on node '"
                    + settings.node() + "': " + e.getMessage(), e);
        }
        if (skipped.entries() > 0) {
            LOG.info("Node '" + settings.node() + "': unpacking into " + directory + " of " + sandboxName + " left out "
                    + skipped);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file: the system's cleaning takes it
            }
        }
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
