package dev.dockyard.backend;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a node's sandboxes can do and how its outages look, read by the use cases that would
 * otherwise have to ask which backend they talk to (pause, reconciliation, the workspace sweep).
 * Most backends run on an engine this control plane reaches over a connection and freeze what they
 * pause: {@link #ENGINE}; the others say how they differ.
 *
 * @param freezes                  whether {@link RuntimeBackend#pause} freezes the sandbox's
 *                                 processes; a backend without a freezer (Kubernetes) pauses
 *                                 nothing, and a pause there hibernates the runtime instead
 * @param pausesOnItsOwn           whether the backend may pause or hibernate a sandbox behind this
 *                                 control plane's back (a remote control plane's idle lifecycle, an
 *                                 admin there): such a sandbox is asleep, not paused by its user,
 *                                 and work for it resumes it ({@link RuntimeBackend#awaken})
 * @param unreachableWhenPingFails whether a failed {@link RuntimeBackend#ping} means the backend
 *                                 cannot be reached (an engine, a cluster or a control plane over a
 *                                 connection), so that a pass over every node may leave it out until
 *                                 a probe finds it back; not for a node of this host (local, cli),
 *                                 whose probe checks files while its processes are there to reconcile
 * @param disconnectAfter          how long the backend may fail to list its sandboxes before the
 *                                 runtimes on it count as disconnected (a remote control plane that
 *                                 does not answer); empty: never, the runtimes are left as they are
 *                                 until it can be listed again (a Docker engine)
 */
public record BackendCapabilities(boolean freezes, boolean pausesOnItsOwn, boolean unreachableWhenPingFails,
                                  Optional<Duration> disconnectAfter) {

    /** A container engine over a connection: freezes, pauses only when asked, never disconnects its runtimes. */
    public static final BackendCapabilities ENGINE = new BackendCapabilities(true, false, true, Optional.empty());

    public BackendCapabilities {
        Objects.requireNonNull(disconnectAfter, "disconnectAfter");
    }

    /** The same, for a backend without a freezer. */
    public BackendCapabilities withoutFreezer() {
        return new BackendCapabilities(false, pausesOnItsOwn, unreachableWhenPingFails, disconnectAfter);
    }

    /** The same, for a node of this host: a failed probe leaves its processes to reconcile. */
    public BackendCapabilities onThisHost() {
        return new BackendCapabilities(freezes, pausesOnItsOwn, false, disconnectAfter);
    }

    /** The same, for a node that pauses its sandboxes on its own and whose runtimes count as disconnected after {@code outage}. */
    public BackendCapabilities withAPlaneOfItsOwn(Duration outage) {
        return new BackendCapabilities(freezes, true, unreachableWhenPingFails, Optional.of(outage));
    }
}
