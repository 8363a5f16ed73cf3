package dev.dockyard.backend;

import java.util.List;

/**
 * How a sandbox is set apart from its host beyond Dockyard's fixed hardening, as its request asked
 * (API.md's {@code sandbox.runtimeClass}, {@code sandbox.gpus}, {@code sandbox.networks}):
 * the isolation runtime ({@code null}: the node's default; {@link #RUNC} or {@link #GVISOR}), the
 * GPUs it gets ({@code null}: none) and the further networks, which an admin allows by name, it
 * is attached to. A node that cannot give what is asked refuses it ({@link UnsupportedIsolationException}).
 */
public record SandboxIsolation(String runtimeClass, SandboxGpus gpus, List<String> networks) {

    /** The kernel's own namespaces and cgroups (Docker's default runtime). */
    public static final String RUNC = "runc";
    /** gVisor: a user-space kernel between the sandbox and the host's. */
    public static final String GVISOR = "gvisor";
    /** The runtime classes a request may name. */
    public static final List<String> RUNTIME_CLASSES = List.of(RUNC, GVISOR);

    /** What a request that asked for nothing gets: the node's defaults. */
    public static final SandboxIsolation DEFAULT = new SandboxIsolation(null, null, List.of());

    public SandboxIsolation {
        networks = networks == null ? List.of() : List.copyOf(networks);
        if (runtimeClass != null && !RUNTIME_CLASSES.contains(runtimeClass)) {
            throw new IllegalArgumentException("unknown runtime class '" + runtimeClass + "'; known: " + RUNTIME_CLASSES);
        }
    }

    /** True when the request asked for nothing beyond the node's defaults (a warm sandbox will do). */
    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /**
     * GPUs for a sandbox: {@code count} of any of the node's GPUs (-1: all of them), or the GPUs
     * with these {@code deviceIds} (then count is 0).
     */
    public record SandboxGpus(int count, List<String> deviceIds) {

        public SandboxGpus {
            deviceIds = List.copyOf(deviceIds);
            if ((count == 0) == deviceIds.isEmpty()) {
                throw new IllegalArgumentException("GPUs are a count or device ids, one of the two");
            }
        }

        /** The number of GPUs this asks for (-1: all the node has). */
        public int wanted() {
            return deviceIds.isEmpty() ? count : deviceIds.size();
        }
    }
}
