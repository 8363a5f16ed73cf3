package dev.dockyard.backend.remote;

import java.time.Instant;

/**
 * A runtime as the remote control plane's {@code /api/v1} shows it.
 *
 * @param session its conversation id there: {@code <instance>:<sandbox name>} for this control plane's
 * @param status  one of Dockyard's statuses (API.md), as the remote names it
 */
public record RemoteRuntime(String id, String session, String status, String statusMessage, Instant createdAt) {

    /** Whether the remote still holds a sandbox for it (not STOPPED, not ERROR). */
    public boolean live() {
        return !"STOPPED".equals(status) && !"ERROR".equals(status);
    }
}
