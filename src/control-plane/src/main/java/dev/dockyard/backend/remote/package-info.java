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
 * <p><b>Retries.</b> Calls that may be repeated safely (every GET, pause, resume, hibernate,
 * DELETE, and the start, which carries an {@code Idempotency-Key} derived from the session, and
 * which the session alone already makes idempotent there: one live runtime per session) are retried
 * with a delay by MicroProfile Fault Tolerance ({@link RemoteCalls}) when the remote did not answer;
 * an answer, even an error, is never retried.
 *
 * <p><b>Health.</b> The node's probe is an authenticated call to the remote; a remote that fails it
 * takes no new runtimes. A remote that cannot be listed for {@code dockyard.node.<name>.disconnect-after}
 * seconds makes its READY and PAUSED runtimes ERROR_RUNTIME_DISCONNECTED; once it answers, the
 * reconciler finds them there and they are READY (or PAUSED) again.
 *
 * <p>Not carried: images are the remote's (none is built or pushed from here), sandboxes of an
 * image's own program, kept workspaces, snapshots and migration to or from a remote node (no
 * workspace archive crosses the API), isolation options and resource sizes beyond the remote's
 * defaults (its runtime API sizes runtimes by a factor only).
 */
package dev.dockyard.backend.remote;
