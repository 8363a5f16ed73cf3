package dev.dockyard.backend;

import java.util.List;

/**
 * How a sandbox is set apart from its host beyond Dockyard's fixed hardening, as its request asked
 * (API.md's {@code sandbox.runtimeClass}, {@code sandbox.gpus}, {@code sandbox.networks} and
 * {@code sandbox.readOnlyRoot}): the isolation runtime ({@code null}: the node's default;
 * {@link #RUNC} or {@link #GVISOR}), the GPUs it gets ({@code null}: none), the further networks,
 * which an admin allows by name, it is attached to, and whether its root file system is read-only
 * ({@code null}: the node's default, {@code dockyard.sandbox.read-only-root}; a runtime whose
 * agent writes into the image's own files asks for {@code false}). A node that cannot give what
 * is asked refuses it ({@link UnsupportedIsolationException}).
 */
public record SandboxIsolation(String runtimeClass, SandboxGpus gpus, List<String> networks, Boolean readOnlyRoot) {

    /** The kernel's own namespaces and cgroups (Docker's default runtime). */
    public static final String RUNC = "runc";
    /** gVisor: a user-space kernel between the sandbox and the host's. */
    public static final String GVISOR = "gvisor";
    /** The runtime classes a request may name. */
    public static final List<String> RUNTIME_CLASSES = List.of(RUNC, GVISOR);

    /** What a request that asked for nothing gets: the node's defaults. */
    public static final SandboxIsolation DEFAULT = new SandboxIsolation(null, null, List.of(), null);

    public SandboxIsolation {
        networks = networks == null ? List.of() : List.copyOf(networks);
        if (runtimeClass != null && !RUNTIME_CLASSES.contains(runtimeClass)) {
            throw new IllegalArgumentException("unknown runtime class '" + runtimeClass + "'; known: " + RUNTIME_CLASSES);
        }
    }

    /** An isolation that leaves the root file system to the node's default. */
    public SandboxIsolation(String runtimeClass, SandboxGpus gpus, List<String> networks) {
        this(runtimeClass, gpus, networks, null);
    }

    /** The read-only root the sandbox gets: its request's choice, else {@code nodeDefault}. */
    public boolean readOnlyRoot(boolean nodeDefault) {
        return readOnlyRoot == null ? nodeDefault : readOnlyRoot;
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
