package dev.dockyard.application.remote;

import java.util.Optional;

/** The proxy's view of runtimes; implemented by the application layer. */
public interface ProxyTargets {

    /** The runtime with this id, if it exists and is not stopped. Called on every request: keep it cheap. */
    Optional<ProxyTarget> find(String runtimeId);

    /**
     * Traffic a runtime's service saw: one call per finished HTTP exchange or WebSocket session,
     * with the bytes that went in (client to sandbox) and out. Aggregated into the audit trail.
     */
    void traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut);
}
