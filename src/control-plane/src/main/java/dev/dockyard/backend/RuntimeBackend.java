package dev.dockyard.backend;

import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Runs sandboxes. Calls may block on a remote engine and must never be made inside a transaction.
 * Removal is idempotent: a sandbox that is already gone, or already being removed, counts as removed.
 */
public interface RuntimeBackend {

    /** The name recorded on runtimes this backend serves, e.g. "docker". */
    String name();

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
     * (see {@link SandboxSpec#bootCpus()}): the executor boots CPU-bound, then mostly waits.
     */
    void settle(String sandboxName, double cpus);

    SandboxState inspect(String sandboxName);

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

    /** Stops and removes the sandbox with its anonymous volumes; nothing there is success too. */
    void remove(String sandboxName);
}
