package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Resource limits of local sandboxes with cgroups: a cgroup per sandbox under one of the node's
 * own ({@code dockyard-<instance>-<node>}) with a memory limit (and no swap), a CPU quota and a
 * pids limit. The sandbox's first process joins it before it execs the executor, so everything it
 * starts is inside, and the cgroup lists them all.
 *
 * <p>cgroup v2 (a {@code cgroup.controllers} file at the root): {@code memory.max},
 * {@code memory.swap.max}, {@code cpu.max}, {@code pids.max}, under {@code <cgroup-root>/<group>},
 * the controllers handed down to it. cgroup v1 (a {@code memory}, {@code cpu} and {@code pids}
 * hierarchy each): {@code memory.limit_in_bytes} (and {@code memsw}), {@code cpu.cfs_quota_us},
 * {@code pids.max}, each under this process's own cgroup of that hierarchy, so that nothing leaves
 * the limits the control plane itself runs under. Where neither can be made (no such hierarchy,
 * not writable: a container without delegation), limits are off, said once at start: {@link #reason()}.
 */
public final class CgroupLimits {

    private static final Logger LOG = Logger.getLogger(CgroupLimits.class.getName());
    private static final List<String> CONTROLLERS = List.of("cpu", "memory", "pids");
    private static final String UNIFIED = "unified";
    /** The CPU quota's period, the kernel's default: the quota is cpus × this. */
    static final long PERIOD_MICROS = 100_000;

    /** The node's cgroup per controller ({@link #UNIFIED}: the one of cgroup v2). */
    private final Map<String, Path> parents;
    private final String reason;

    private CgroupLimits(Map<String, Path> parents, String reason) {
        this.parents = Collections.unmodifiableMap(new LinkedHashMap<>(parents));
        this.reason = reason;
    }

    /** No limits, for {@code reason}. */
    public static CgroupLimits off(String reason) {
        return new CgroupLimits(Map.of(), reason);
    }

    /** The node's cgroup {@code group} under {@code root} (v2, else v1), made idempotently; off, with the reason, where impossible. */
    public static CgroupLimits probe(Path root, String group) {
        return probe(root, group, Path.of("/proc/self/cgroup"));
    }

    static CgroupLimits probe(Path root, String group, Path selfCgroup) {
        if (Files.isRegularFile(root.resolve("cgroup.controllers"))) {
            return probeUnified(root, group);
        }
        if (CONTROLLERS.stream().allMatch(c -> Files.isRegularFile(root.resolve(c).resolve("cgroup.procs")))) {
            return probeV1(root, group, selfCgroup);
        }
        return off("no cgroup v2 hierarchy, nor v1 cpu, memory and pids hierarchies, at " + root);
    }

    private static CgroupLimits probeUnified(Path root, String group) {
        try {
            List<String> offered = List.of(Files.readString(root.resolve("cgroup.controllers")).strip().split("\\s+"));
            if (!offered.containsAll(CONTROLLERS)) {
                return off("the cgroup v2 hierarchy at " + root + " offers " + offered + ", not all of " + CONTROLLERS);
            }
            enable(root);
            Path parent = Files.createDirectories(root.resolve(group));
            enable(parent);
            return new CgroupLimits(Map.of(UNIFIED, parent), null);
        } catch (IOException | RuntimeException e) {
            return off("cannot make cgroups under " + root + ": " + e.getMessage());
        }
    }

    private static CgroupLimits probeV1(Path root, String group, Path selfCgroup) {
        try {
            Map<String, String> own = ownCgroups(Files.readAllLines(selfCgroup, StandardCharsets.US_ASCII));
            Map<String, Path> parents = new LinkedHashMap<>();
            for (String controller : CONTROLLERS) {
                String path = own.getOrDefault(controller, "/");
                Path hierarchy = root.resolve(controller);
                parents.put(controller, Files.createDirectories(hierarchy.resolve(path.substring(1)).resolve(group)));
            }
            return new CgroupLimits(parents, null);
        } catch (IOException | RuntimeException e) {
            return off("cannot make cgroup v1 groups under " + root + ": " + e.getMessage());
        }
    }

    /** Each v1 controller's cgroup of this process, from /proc/self/cgroup ({@code id:controllers:path}). */
    static Map<String, String> ownCgroups(List<String> lines) {
        Map<String, String> own = new LinkedHashMap<>();
        for (String line : lines) {
            String[] parts = line.split(":", 3);
            if (parts.length == 3) {
                for (String controller : parts[1].split(",")) {
                    if (!controller.isEmpty()) {
                        own.put(controller, parts[2].startsWith("/") ? parts[2] : "/" + parts[2]);
                    }
                }
            }
        }
        return own;
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
        return !parents.isEmpty();
    }

    /** Why limits are off, or null when they are on. */
    public String reason() {
        return reason;
    }

    /** Which cgroups: v2 or v1. */
    public String kind() {
        return parents.containsKey(UNIFIED) ? "cgroup v2" : "cgroup v1";
    }

    /** The sandbox's cgroups with their limits, made now; none when limits are off. */
    public List<Path> prepare(String sandbox, double cpus, int memoryMb, long pidsLimit) {
        List<Path> made = new ArrayList<>();
        try {
            long memory = memoryMb * 1024L * 1024L;
            for (Map.Entry<String, Path> parent : parents.entrySet()) {
                Path cgroup = Files.createDirectories(parent.getValue().resolve(sandbox));
                made.add(cgroup);
                switch (parent.getKey()) {
                    case UNIFIED -> {
                        Files.writeString(cgroup.resolve("memory.max"), Long.toString(memory));
                        writeIfPresent(cgroup.resolve("memory.swap.max"), "0");
                        Files.writeString(cgroup.resolve("cpu.max"), cpuMax(cpus));
                        if (pidsLimit > 0) {
                            Files.writeString(cgroup.resolve("pids.max"), Long.toString(pidsLimit));
                        }
                    }
                    case "memory" -> {
                        Files.writeString(cgroup.resolve("memory.limit_in_bytes"), Long.toString(memory));
                        // memory and swap together: no swap beyond the memory limit
                        writeIfPresent(cgroup.resolve("memory.memsw.limit_in_bytes"), Long.toString(memory));
                    }
                    case "cpu" -> {
                        Files.writeString(cgroup.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
                        Files.writeString(cgroup.resolve("cpu.cfs_quota_us"), cfsQuota(cpus));
                    }
                    case "pids" -> {
                        if (pidsLimit > 0) {
                            Files.writeString(cgroup.resolve("pids.max"), Long.toString(pidsLimit));
                        }
                    }
                    default -> throw new IllegalStateException(parent.getKey());
                }
            }
            return made;
        } catch (IOException e) {
            throw new IllegalStateException("cannot set the limits of " + sandbox + ": " + e.getMessage(), e);
        }
    }

    /** The sandbox's cgroups that {@link #prepare} made: its first process joins each. */
    public List<Path> paths(String sandbox) {
        return parents.values().stream().map(p -> p.resolve(sandbox)).filter(Files::isDirectory).toList();
    }

    /** Changes the sandbox's CPU limit (0: none); nothing when limits are off or it has no cgroup. */
    public void cpus(String sandbox, double cpus) {
        try {
            Path unified = parents.get(UNIFIED);
            if (unified != null && Files.isDirectory(unified.resolve(sandbox))) {
                Files.writeString(unified.resolve(sandbox).resolve("cpu.max"), cpuMax(cpus));
            }
            Path cpu = parents.get("cpu");
            if (cpu != null && Files.isDirectory(cpu.resolve(sandbox))) {
                Files.writeString(cpu.resolve(sandbox).resolve("cpu.cfs_quota_us"), cfsQuota(cpus));
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not change the CPU limit of " + sandbox, e);
        }
    }

    static String cpuMax(double cpus) {
        if (cpus <= 0) {
            return "max " + PERIOD_MICROS;
        }
        return String.format(Locale.ROOT, "%d %d", quota(cpus), PERIOD_MICROS);
    }

    static String cfsQuota(double cpus) {
        return cpus <= 0 ? "-1" : Long.toString(quota(cpus));
    }

    private static long quota(double cpus) {
        return Math.max(1000, Math.round(cpus * PERIOD_MICROS));
    }

    /** The processes in the sandbox's cgroups (none when limits are off). */
    public List<Long> members(String sandbox) {
        Set<Long> pids = new LinkedHashSet<>();
        for (Path parent : parents.values()) {
            try {
                for (String line : Files.readAllLines(parent.resolve(sandbox).resolve("cgroup.procs"),
                        StandardCharsets.US_ASCII)) {
                    if (!line.isBlank()) {
                        pids.add(Long.parseLong(line.strip()));
                    }
                }
            } catch (NoSuchFileException e) {
                // no cgroup (yet, or any more)
            } catch (IOException | NumberFormatException e) {
                LOG.log(Level.FINE, "could not read the cgroup of " + sandbox, e);
            }
        }
        return List.copyOf(pids);
    }

    /** Removes the sandbox's cgroups once its processes are gone; gone already is success. */
    public void remove(String sandbox) {
        for (Path parent : parents.values()) {
            try {
                Files.deleteIfExists(parent.resolve(sandbox));
            } catch (IOException e) {
                LOG.log(Level.WARNING, "could not remove the cgroup " + parent.resolve(sandbox) + ": " + e.getMessage());
            }
        }
    }

    private static void writeIfPresent(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            Files.writeString(file, value);
        }
    }

    @Override
    public String toString() {
        return enabled() ? kind() + " " + parents.values() : "off: " + reason;
    }
}
