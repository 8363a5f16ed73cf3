package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Resource limits of local sandboxes with cgroup v2: a cgroup per sandbox under one of the node's
 * own ({@code <cgroup-root>/dockyard-<instance>-<node>}) with {@code memory.max} (and no swap),
 * {@code cpu.max} and {@code pids.max}. The sandbox's first process joins it before it execs the
 * executor, so everything it starts is inside, and its {@code cgroup.procs} lists them all.
 *
 * <p>Where the host has no cgroup v2 hierarchy with these controllers, or this process may not
 * make cgroups there (a container without a delegated subtree, a v1 host), limits are off, said
 * once at start: {@link #reason()}.
 */
public final class CgroupLimits {

    private static final Logger LOG = Logger.getLogger(CgroupLimits.class.getName());
    private static final Set<String> CONTROLLERS = Set.of("cpu", "memory", "pids");
    /** cpu.max's period, the kernel's default: the quota is cpus × this. */
    static final long PERIOD_MICROS = 100_000;

    private final Path parent;
    private final String reason;

    private CgroupLimits(Path parent, String reason) {
        this.parent = parent;
        this.reason = reason;
    }

    /** No limits, for {@code reason}. */
    public static CgroupLimits off(String reason) {
        return new CgroupLimits(null, reason);
    }

    /**
     * The node's cgroup under {@code root}, made (idempotently) with the three controllers handed
     * down to its children; off, with the reason, where that is impossible here.
     */
    public static CgroupLimits probe(Path root, String group) {
        Path controllers = root.resolve("cgroup.controllers");
        if (!Files.isRegularFile(controllers)) {
            return off("no cgroup v2 hierarchy at " + root);
        }
        try {
            List<String> offered = List.of(Files.readString(controllers).strip().split("\\s+"));
            if (!offered.containsAll(CONTROLLERS)) {
                return off("the cgroup v2 hierarchy at " + root + " offers " + offered + ", not all of " + CONTROLLERS);
            }
            enable(root);
            Path parent = Files.createDirectories(root.resolve(group));
            enable(parent);
            return new CgroupLimits(parent, null);
        } catch (IOException | RuntimeException e) {
            return off("cannot make cgroups under " + root + ": " + e.getMessage());
        }
    }

    private static void enable(Path cgroup) throws IOException {
        Path control = cgroup.resolve("cgroup.subtree_control");
        String enabled = Files.exists(control) ? Files.readString(control) : "";
        for (String controller : CONTROLLERS) {
            if (!List.of(enabled.strip().split("\\s+")).contains(controller)) {
                Files.writeString(control, "+" + controller);
            }
        }
    }

    public boolean enabled() {
        return parent != null;
    }

    /** Why limits are off, or null when they are on. */
    public String reason() {
        return reason;
    }

    /** The sandbox's cgroup with its limits, made now; empty when limits are off. */
    public Optional<Path> prepare(String sandbox, double cpus, int memoryMb, long pidsLimit) {
        if (parent == null) {
            return Optional.empty();
        }
        try {
            Path cgroup = Files.createDirectories(parent.resolve(sandbox));
            Files.writeString(cgroup.resolve("memory.max"), Long.toString(memoryMb * 1024L * 1024L));
            writeIfPresent(cgroup.resolve("memory.swap.max"), "0");
            Files.writeString(cgroup.resolve("cpu.max"), cpuMax(cpus));
            if (pidsLimit > 0) {
                Files.writeString(cgroup.resolve("pids.max"), Long.toString(pidsLimit));
            }
            return Optional.of(cgroup);
        } catch (IOException e) {
            throw new IllegalStateException("cannot set the limits of " + sandbox + ": " + e.getMessage(), e);
        }
    }

    /** The sandbox's cgroup, when limits are on and {@link #prepare} made it. */
    public Optional<Path> path(String sandbox) {
        return parent == null ? Optional.empty() : Optional.of(parent.resolve(sandbox)).filter(Files::isDirectory);
    }

    /** Changes the sandbox's CPU limit (0: none); nothing when limits are off or it has no cgroup. */
    public void cpus(String sandbox, double cpus) {
        if (parent == null || !Files.isDirectory(parent.resolve(sandbox))) {
            return;
        }
        try {
            Files.writeString(parent.resolve(sandbox).resolve("cpu.max"), cpuMax(cpus));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not change the CPU limit of " + sandbox, e);
        }
    }

    static String cpuMax(double cpus) {
        if (cpus <= 0) {
            return "max " + PERIOD_MICROS;
        }
        return String.format(Locale.ROOT, "%d %d", Math.max(1000, Math.round(cpus * PERIOD_MICROS)), PERIOD_MICROS);
    }

    /** The processes in the sandbox's cgroup (none when limits are off). */
    public List<Long> members(String sandbox) {
        List<Long> pids = new ArrayList<>();
        if (parent == null) {
            return pids;
        }
        try {
            for (String line : Files.readAllLines(parent.resolve(sandbox).resolve("cgroup.procs"), StandardCharsets.US_ASCII)) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.strip()));
                }
            }
        } catch (NoSuchFileException e) {
            return pids;
        } catch (IOException | NumberFormatException e) {
            LOG.log(Level.FINE, "could not read the cgroup of " + sandbox, e);
        }
        return pids;
    }

    /** Removes the sandbox's cgroup once its processes are gone; gone already is success. */
    public void remove(String sandbox) {
        if (parent == null) {
            return;
        }
        try {
            Files.deleteIfExists(parent.resolve(sandbox));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not remove the cgroup of " + sandbox + ": " + e.getMessage());
        }
    }

    private static void writeIfPresent(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            Files.writeString(file, value);
        }
    }
}
