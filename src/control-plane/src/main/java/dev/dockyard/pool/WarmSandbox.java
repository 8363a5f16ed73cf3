package dev.dockyard.pool;

import java.time.Instant;

/** A READY member as a claim needs it, held in memory so that a claim reads nothing before its one transaction. */
public record WarmSandbox(String id, String pool, String shape, String sessionKey, String containerId,
                          String executorUrl, String runtimeImage, Instant readyAt) {

    static WarmSandbox of(PoolMember member) {
        return new WarmSandbox(member.id(), member.pool(), member.shape(), member.sessionKey(), member.containerId(),
                member.executorUrl(), member.runtimeImage(), member.readyAt());
    }

    @Override
    public String toString() {
        return "WarmSandbox[" + id + ", pool=" + pool + "]";
    }
}
