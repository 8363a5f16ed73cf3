package dev.dockyard.backend;

import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Runs sandboxes. Calls may block on a remote engine and must never be made inside a transaction.
 * Removal is idempotent: a sandbox that is already gone, or already being removed, counts as removed.
 */
public interface RuntimeBackend {

    /** The name recorded on runtimes this backend serves, e.g. "docker". */
    String name();

    /** What its sandboxes can do and how its outages look; the default, a container engine's. */
    default BackendCapabilities capabilities() {
        return BackendCapabilities.ENGINE;
    }

    /**
     * A cheap health probe of the backend (Docker: the engine's ping; Kubernetes: one pod listed in the
     * namespace); placement sends no new runtime to a node whose probe fails. The default, for
     * backends with nothing to ask, passes.
     *
     * @throws BackendException or any runtime exception when the backend does not answer
     */
    default void ping() {
    }

    /**
     * Since when the backend has given no answer to any call, when it keeps track (a remote control
     * plane: its health probe and every other call count); empty while it answers, or when it does
     * not know. The outage that {@link BackendCapabilities#disconnectAfter} bounds is measured from here when this is
     * earlier than the first list that failed.
     */
    default Optional<Instant> unansweredSince() {
        return Optional.empty();
    }

    /**
     * Called before work that cannot be sent twice (an upload, whose body is read as it goes)
     * reaches a READY runtime's sandbox: a backend that {@link BackendCapabilities#pausesOnItsOwn pauses on its own} resumes it here if
     * it is asleep. The default has nothing to do.
     */
    default void awaken(String sandboxName) {
    }

    /**
     * Called when the sandbox's executor answered work with 503 (nothing was done): a backend that
     * {@link BackendCapabilities#pausesOnItsOwn pauses on its own} resumes the sandbox if it is asleep and answers whether it takes work
     * now, so that the work is sent once more; this costs such a backend nothing while it is awake.
     * The default answers false: the 503 stands.
     */
    default boolean awakenAfterRefusal(String sandboxName) {
        return false;
    }

    /**
     * After {@link #create}, before a workspace is restored into the sandbox or it is started:
     * waits until a sandbox that the backend brings up elsewhere, on its own (a remote control plane
     * builds its image and boots it), runs there, within {@code timeout}. The default has nothing to
     * wait for: a created sandbox is there.
     *
     * @throws BackendException when it will not run (it failed there, or not within the timeout)
     */
    default void awaitRunning(String sandboxName, Duration timeout) {
    }

    /**
     * Whether what listens at {@code endpoint} now is the sandbox's own executor: the control plane
     * sends the session key nowhere else. A backend whose sandboxes bind host ports themselves
     * (local: the port is picked free, and the executor binds it a moment later, when another
     * process of the host could take it first) checks it, and answers false while nothing listens
     * there yet or the executor is gone. Docker's asks its engine whether the container publishes
     * there now, running and not frozen (a stopped one's port may be anyone's; a frozen one's takes
     * connections nothing answers). The default, for ports an engine gives to the sandbox alone (or
     * a server of this control plane's own), is true.
     *
     * @throws BackendException when another process listens there
     */
    default boolean listensAt(String sandboxName, URI endpoint) {
        return true;
    }

    /**
     * Readies the node for its first sandbox, once at the control plane's start: what the first
     * provision would otherwise do itself happens now (on Docker, the default bridge's link-local
     * refusal, installed by the egress helper, whose run also loads and compiles the engine
     * client's paths a provision takes). Never fails: a node that cannot be readied now is readied
     * by its first provision, as without this. The default has nothing to do.
     */
    default void prepare() {
    }

    /** Creates the sandbox, not yet started, and hands the session key to it. Returns its backend id. */
    String create(SandboxSpec spec);

    /** Starts a created sandbox; returns where the control plane reaches its executor. */
    URI start(String sandboxName, int executorPort);

    /**
     * Starts a stopped sandbox again (its container kept its files), handing its executor the
     * session key anew; returns where the executor will answer once it has booted.
     */
    URI revive(String sandboxName, String sessionKey, String user, int executorPort);

    /**
     * Where the control plane reaches the executor of a running sandbox now (a restarted
     * container may have been given another host port).
     */
    URI endpoint(String sandboxName, int executorPort);

    /**
     * Applies the sandbox's steady-state CPU limit once it is ready. Until then it may use more
     * (see {@link SandboxSpec#bootCpus()}): the executor boots CPU-bound, then mostly waits. A
     * sandbox booted in the background ({@link SandboxSpec#background()}) gets the normal CPU
     * weight back here.
     */
    void settle(String sandboxName, double cpus);

    SandboxState inspect(String sandboxName);

    /**
     * What the sandbox uses now, for clients that ask (E2B's metrics); empty when this backend does
     * not measure it or the sandbox is not there. The default measures nothing.
     */
    default Optional<SandboxUsage> usage(String sandboxName) {
        return Optional.empty();
    }

    /** Freezes every process of the sandbox (cgroup freezer); already frozen is success. */
    void pause(String sandboxName);

    /** Thaws a frozen sandbox; not frozen is success. */
    void unpause(String sandboxName);

    /**
     * Stops the sandbox's processes (a frozen one is thawed first), keeping its container and
     * files so that {@link #revive} can start it again; stopped already is success.
     */
    void stop(String sandboxName);

    /**
     * Every sandbox carrying {@link Labels#MANAGED} and owned by {@code controlPlane}, running or not.
     *
     * @throws BackendException when the backend cannot be listed: callers must then act on nothing
     */
    List<ManagedSandbox> listManaged(String controlPlane);

    /**
     * A tar stream of {@code path} in the sandbox, its last name component as the top entry and
     * owners kept; the caller closes it.
     */
    InputStream archive(String sandboxName, String path);

    /** Unpacks a tar stream (owners kept) into {@code directory} of the sandbox, e.g. a created one before it starts. */
    void restore(String sandboxName, String directory, InputStream tar);

    /**
     * Replaces the environment file a sandbox of another image's program starts from (see
     * {@link SandboxProcess}), e.g. once a dormant server has been given its runtime's keys.
     */
    void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user);

    /**
     * Stops and removes the sandbox with its anonymous volumes and its own workspace volume (a
     * mounted kept one stays); nothing there is success too.
     */
    void remove(String sandboxName);

    // Workspaces and snapshots. Defaults for backends that keep no workspace volumes: nothing to
    // list or remove, and keeping or capturing one is refused rather than silently lost.

    /**
     * The volume at the sandbox's {@code /workspace}, or null when it has none (a sandbox of an
     * image's own process, or one created before workspaces were volumes).
     */
    default String workspaceVolume(String sandboxName) {
        return null;
    }

    /**
     * Stops and removes the sandbox but keeps its workspace as the volume {@code keptVolume}
     * (labelled with {@code labels}): the sandbox's own volume moves there, so that removing the
     * sandbox's name again can never take it; a kept volume it mounted stays as it is. Returns
     * the kept volume, or null when the sandbox had none.
     */
    default String keepWorkspace(String sandboxName, String keptVolume, Map<String, String> labels) {
        throw new BackendException("backend '" + name() + "' keeps no workspaces");
    }

    /** Removes a workspace volume no sandbox uses any more (its disk too); already gone is success. */
    default void removeWorkspace(String volume) {
    }

    /**
     * Every workspace volume ({@link Labels#WORKSPACE}) owned by {@code controlPlane}.
     *
     * @throws BackendException when the volumes cannot be listed: callers must then act on nothing
     */
    default List<WorkspaceVolume> listWorkspaces(String controlPlane) {
        return List.of();
    }

    /**
     * Removes the sandbox networks of {@code controlPlane} (see {@link EgressPolicy}) created before
     * {@code cutoff} whose sandbox is gone, with their packet-filter rules; returns how many.
     *
     * @throws BackendException when the networks cannot be listed
     */
    default int sweepNetworks(String controlPlane, Instant cutoff) {
        return 0;
    }

    /**
     * Removes the home volumes of {@code controlPlane} (a read-only root's, see
     * {@link Labels#HOME}) created before {@code cutoff} that no sandbox mounts; returns how many.
     *
     * @throws BackendException when the volumes cannot be listed
     */
    default int sweepHomes(String controlPlane, Instant cutoff) {
        return 0;
    }

    /**
     * Removes the snapshots of {@code controlPlane} on this node (their image and workspace copy,
     * see {@link CapturedSnapshot}) that {@code abandoned} says nobody will record; returns how
     * many. A part still used by a sandbox stays.
     *
     * @throws BackendException when the snapshots cannot be listed
     */
    default int sweepCaptures(String controlPlane, Predicate<CapturedSnapshot> abandoned) {
        return 0;
    }

    /**
     * Removes the one-shot helper containers (a workspace's copier) of {@code controlPlane} that
     * it left behind when a process of it died while they ran: each would keep the volumes it
     * mounts in use for good. Those ended after {@code cutoff}, or running for less than their
     * runner waits for them, may be their runner's; returns how many.
     *
     * @throws BackendException when the containers cannot be listed
     */
    default int sweepHelpers(String controlPlane, Instant cutoff) {
        return 0;
    }

    /** The bytes a workspace volume takes on the host now, or -1 when unknown. */
    default long workspaceBytes(String volume) {
        return -1;
    }

    /**
     * Captures a frozen sandbox: its container committed to an image and its workspace copied to a
     * new volume, both labelled with {@code labels}. The caller freezes and thaws the sandbox.
     */
    default SnapshotCapture capture(String sandboxName, String snapshotId, Map<String, String> labels) {
        throw new BackendException("backend '" + name() + "' takes no snapshots");
    }

    /**
     * Removes a snapshot's image and workspace copy; already gone is success.
     *
     * @throws BackendException when the image is still used by a sandbox
     */
    default void removeSnapshot(String image, String volume) {
    }
}
