/**
 * Remote nodes ({@code dockyard.node.<name>.type=remote}): a backend node that is another Dockyard
 * control plane, reached over its HTTP API with an API key of one of its users.
 *
 * <p><b>Which API, and why.</b> A runtime on a remote node is started through the remote's
 * OpenHands Remote Runtime API ({@code POST /runtime-api/start}), because that is the one API of
 * Dockyard whose runtimes expose their executor: the runtime's {@code url} (the remote's service
 * proxy, {@code {remote}/{remote runtime id}}) takes the executor protocol as it is. The local
 * runtime's executor URI is that url, so {@code ExecutorClient}, the local proxy, transfers and
 * readiness work unchanged, with no remote-specific path in them. The only thing to bridge is the
 * key: the local runtime already has its session key, which the local side sends as
 * {@code X-Session-API-Key}; the start hands it to the remote as the runtime's service key
 * (Dockyard's {@code session_api_key} extension of {@code /start}), so the remote's proxy accepts it
 * and puts the remote sandbox's own key in its place. No key travels in a URL or a log line.
 * Everything else (status, pause, resume, hibernate, delete, the list) goes through the remote's
 * {@code /api/v1}, which speaks Dockyard's statuses and, unlike the runtime API's {@code /resume},
 * keeps the service key on a resume.
 *
 * <p><b>Names.</b> The remote runtime's session (its conversation id there) is
 * {@code <this control plane's instance>:<sandbox name>}: the reconciler's list is the remote
 * runtimes of the key's user whose conversation starts with this control plane's instance, and a
 * sandbox's remote runtime is found from its name alone (after a restart too); the remote runtime
 * ids are also kept in memory.
 *
 * <p><b>Starts.</b> A start answers at once there; the remote then builds and boots the runtime on
 * its own. Provisioning waits for it ({@code awaitRunning}) by following that runtime's event
 * stream there ({@code GET /api/v1/runtimes/{id}/events}: its history, then each change), one
 * stream per runtime being brought up, read on its provisioning thread and closed once it is READY
 * there; an ERROR there fails the start at once with the remote's message. When the stream cannot
 * be had or breaks (or says nothing for 45 s: the remote sends a keep-alive every 15 s), the status
 * is asked every second instead. Live runtimes are not followed: the local record of a live remote
 * runtime changes only when its sandbox is lost there, which the reconciler's list finds, and a
 * stream per live runtime would hold a connection (and a queue there) for each, all reopened at
 * once after an outage.
 *
 * <p><b>Asleep there.</b> The remote's idle lifecycle or an admin there may pause or hibernate a
 * runtime behind this control plane's back ({@code pausesOnItsOwn}): it stays READY here. An action
 * is sent as it is; the remote's proxy refuses it with a 503 before anything runs, the runtime is
 * resumed there and the action sent once more, so an awake runtime costs the remote no extra call.
 * An upload, whose body cannot be sent twice, asks first. A runtime the remote paused during an
 * outage comes back PAUSED but asleep: its next action resumes it.
 *
 * <p><b>Workspaces.</b> Migration to and from a remote node carries the workspace through the
 * remote runtime's executor, over the remote's API ({@code /api/v1/runtimes/{id}/files}): its zip
 * of {@code /workspace} becomes the tar migration moves, and a tar becomes a zip it unpacks
 * ({@link dev.dockyard.backend.remote.WorkspaceArchives}). Files, directories and permission bits
 * travel; links, devices, owners and times do not (the files are the receiving sandbox user's).
 *
 * <p><b>Retries.</b> Calls that may be repeated safely (every GET, pause, resume, hibernate,
 * DELETE, the workspace's download, and the start, which carries an {@code Idempotency-Key} derived
 * from the session, and which the session alone already makes idempotent there: one live runtime
 * per session) are retried with a delay by MicroProfile Fault Tolerance ({@link RemoteCalls}) when
 * the remote did not answer, a call that timed out included; an answer, even an error, is never
 * retried, nor is a workspace's upload (its body is read as it goes).
 *
 * <p><b>Health.</b> The node's probe is an authenticated call to the remote; a remote that fails it
 * takes no new runtimes. A remote that has not answered any call for
 * {@code dockyard.node.<name>.disconnect-after} seconds (counted from its first unanswered call,
 * the probe's included) and cannot be listed makes its READY and PAUSED runtimes
 * ERROR_RUNTIME_DISCONNECTED; once it answers, the reconciler finds them there and they are READY
 * (or PAUSED) again.
 *
 * <p><b>Plain http.</b> The API key and the runtimes' session keys cross the network with every
 * call: a {@code http://} URL to any host but this machine's loopback is warned about at startup.
 *
 * <p>Carried: the runtime's executor server ({@code executor_server} of the start, see
 * {@code ExecutorServer}), so that the remote's own node setting does not decide it behind this
 * side's record; a remote of a version before the choice refuses the member (400).
 *
 * <p>Not carried: images are the remote's (none is built or pushed from here), sandboxes of an
 * image's own program, kept workspaces, snapshots, isolation options and resource sizes beyond
 * the remote's defaults (its runtime API sizes runtimes by a factor only).
 *
 * <p><b>The classes.</b> {@link RemoteNode} makes a node's parts; {@link RemoteBackend} is its
 * {@code RuntimeBackend}; {@link RemoteControlPlane} is the remote's API, one method a call, built
 * on {@link RemoteHttp} (the exchanges, the key, whether the remote answers), {@link RemoteAnswers}
 * (what its JSON means, refused when it is not Dockyard's) and {@link RuntimeEvents} (a runtime's
 * event stream, read as {@link ServerSentEvent}s).
 */
package dev.dockyard.backend.remote;
