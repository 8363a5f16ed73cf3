package dev.dockyard.application.remote;

import java.util.Optional;
import java.util.function.Predicate;

/** The proxy's view of runtimes; implemented by the application layer. */
public interface ProxyTargets {

    /** The runtime with this id, if it exists and is not stopped. Called on every request: keep it cheap. */
    Optional<ProxyTarget> find(String runtimeId);

    /**
     * The live runtime whose service key {@code matches} says is the one, among those that expose
     * their main service: for a request that names no runtime but proves a key (E2B's signed file
     * URLs carry a signature made with it and nothing else). Reads every such runtime: for rare
     * requests only.
     */
    Optional<ProxyTarget> findByKey(Predicate<String> matches);

    /**
     * Traffic a runtime's service saw: one call per finished HTTP exchange or WebSocket session,
     * with the bytes that went in (client to sandbox) and out. Aggregated into the audit trail.
     */
    void traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut);

    /**
     * A request found the runtime's main service refusing connections while the runtime was READY.
     * Whether the runtime is being recovered: its sandbox stopped or is gone, or its engine does not
     * answer, or Dockyard's executor no longer answers in a sandbox that still runs (it is the
     * sandbox's first process: the sandbox is stopping), and the reconciler is asked for a pass now
     * rather than at its next tick. False when the sandbox runs and its server answers, or the
     * program of another image does not listen, which no recovery restarts.
     */
    boolean unanswered(String runtimeId);
}
