package dev.dockyard.runtime;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life cycle of a runtime (API.md). A runtime is <em>live</em> until it reaches STOPPED or
 * ERROR; only live runtimes hold a container, and only one live runtime may serve a conversation.
 *
 * <pre>
 * STARTING_RUNTIME ─┬─▶ RUNTIME_STARTED ─▶ READY ◀─▶ PAUSED ─▶ HIBERNATED ─▶ READY (or back to PAUSED)
 *        ▲          └─▶ BUILDING_RUNTIME ─┘ (back to STARTING_RUNTIME)
 * any live status ──▶ ERROR | STOPPED;  READY/PAUSED/HIBERNATED ──▶ ERROR_RUNTIME_DISCONNECTED ──▶ READY | PAUSED | STOPPED | ERROR
 * </pre>
 * HIBERNATED is a paused runtime whose container was stopped to free its memory: files kept,
 * processes and shell not; it becomes READY again by a cold boot of its executor
 * ({@code dev.dockyard.runtime.lifecycle}). It is live: it keeps its conversation and its quota.
 */
public enum RuntimeStatus {
    STARTING_RUNTIME,
    BUILDING_RUNTIME,
    RUNTIME_STARTED,
    READY,
    PAUSED,
    STOPPED,
    ERROR,
    ERROR_RUNTIME_DISCONNECTED,
    HIBERNATED;

    public boolean isLive() {
        return this != STOPPED && this != ERROR;
    }

    /** Still on its way to READY: provisioning owns it. */
    public boolean isStarting() {
        return this == STARTING_RUNTIME || this == BUILDING_RUNTIME || this == RUNTIME_STARTED;
    }

    public Set<RuntimeStatus> successors() {
        return switch (this) {
            case STARTING_RUNTIME -> EnumSet.of(BUILDING_RUNTIME, RUNTIME_STARTED, ERROR, STOPPED);
            case BUILDING_RUNTIME -> EnumSet.of(STARTING_RUNTIME, ERROR, STOPPED);
            case RUNTIME_STARTED -> EnumSet.of(READY, ERROR, STOPPED);
            case READY -> EnumSet.of(PAUSED, ERROR, ERROR_RUNTIME_DISCONNECTED, STOPPED);
            case PAUSED -> EnumSet.of(READY, HIBERNATED, ERROR, ERROR_RUNTIME_DISCONNECTED, STOPPED);
            // back to PAUSED only when stopping its container failed
            case HIBERNATED -> EnumSet.of(READY, PAUSED, ERROR, ERROR_RUNTIME_DISCONNECTED, STOPPED);
            case ERROR_RUNTIME_DISCONNECTED -> EnumSet.of(READY, PAUSED, ERROR, STOPPED);
            // an ERROR runtime keeps its row (and history); DELETE still stops it for good
            case ERROR -> EnumSet.of(STOPPED);
            case STOPPED -> EnumSet.noneOf(RuntimeStatus.class);
        };
    }

    public boolean canBecome(RuntimeStatus next) {
        return successors().contains(next);
    }
}
