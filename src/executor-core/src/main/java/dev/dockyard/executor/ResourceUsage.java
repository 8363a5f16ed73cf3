package dev.dockyard.executor;

import com.sun.management.OperatingSystemMXBean;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The {@code resources} of OpenHands' {@code GET /server_info}, measured as its
 * {@code openhands/runtime/utils/system_stats.py get_system_stats} measures them with psutil.
 *
 * <p>The model is psutil's {@code Process()}: the executor's own process (the JVM with all its
 * threads), not the shell and what it runs, just as OpenHands measures its action execution
 * server and not the tmux-held bash. {@code cpu_percent} is the process's CPU time over a 0.1 s
 * window in percent of one CPU, rounded to one decimal (it exceeds 100 when several threads
 * work); {@code memory} is the resident and virtual size in bytes and the resident size in
 * percent of the machine's memory, unrounded; {@code disk} is the file system holding {@code /},
 * with {@code used} = total - free-for-root, {@code free} = available to users and
 * {@code percent} = used / (used + free), rounded to one decimal; {@code io} is the bytes this
 * process made the storage layer read and write, from {@code /proc/<pid>/io} (0 where unreadable).
 */
public final class ResourceUsage {

    /** psutil's first {@code cpu_percent()} call, a 0.1 s sleep, then the second. */
    static final Duration CPU_WINDOW = Duration.ofMillis(100);

    private final Path procSelf;
    private final Path meminfo;
    private final Path root;
    private final LongSupplier cpuNanos;
    private final LongSupplier wallNanos;
    private final Duration window;

    ResourceUsage(Path procSelf, Path meminfo, Path root, LongSupplier cpuNanos, LongSupplier wallNanos,
                  Duration window) {
        this.procSelf = procSelf;
        this.meminfo = meminfo;
        this.root = root;
        this.cpuNanos = cpuNanos;
        this.wallNanos = wallNanos;
        this.window = window;
    }

    /** This process, as seen through /proc, with its CPU time from the JVM's own clock. */
    public static ResourceUsage ofThisProcess() {
        // the JVM's process CPU clock (all threads, user + system) has nanoseconds where /proc has ticks
        LongSupplier cpu = ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean jvm
                ? jvm::getProcessCpuTime
                : () -> ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        return new ResourceUsage(Path.of("/proc/self"), Path.of("/proc/meminfo"), Path.of("/"), cpu,
                System::nanoTime, CPU_WINDOW);
    }

    /** Takes the measurement; blocks for the CPU window, as OpenHands' server does. */
    public JsonObject measure() {
        double cpuPercent = cpuPercent();
        Map<String, Long> status = fields(procSelf.resolve("status"));
        long rss = status.getOrDefault("VmRSS", 0L) * 1024;
        long vms = status.getOrDefault("VmSize", 0L) * 1024;
        long totalMemory = fields(meminfo).getOrDefault("MemTotal", 0L) * 1024;
        Map<String, Long> io = fields(procSelf.resolve("io"));
        return Jsonp.createObjectBuilder()
                .add("cpu_percent", cpuPercent)
                .add("memory", Jsonp.createObjectBuilder().add("rss", rss).add("vms", vms)
                        .add("percent", totalMemory == 0 ? 0.0 : rss / (double) totalMemory * 100))
                .add("disk", disk())
                .add("io", Jsonp.createObjectBuilder().add("read_bytes", io.getOrDefault("read_bytes", 0L))
                        .add("write_bytes", io.getOrDefault("write_bytes", 0L)))
                .build();
    }

    private double cpuPercent() {
        long cpu0 = cpuNanos.getAsLong();
        long wall0 = wallNanos.getAsLong();
        try {
            TimeUnit.NANOSECONDS.sleep(window.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long wall = wallNanos.getAsLong() - wall0;
        long cpu = cpuNanos.getAsLong() - cpu0;
        return wall <= 0 ? 0.0 : round1(cpu / (double) wall * 100);
    }

    private JsonObject disk() {
        try {
            FileStore store = Files.getFileStore(root);
            long total = store.getTotalSpace();
            long used = total - store.getUnallocatedSpace();
            long free = store.getUsableSpace();
            double percent = used + free == 0 ? 0.0 : round1(used / (double) (used + free) * 100);
            return Jsonp.createObjectBuilder().add("total", total).add("used", used).add("free", free)
                    .add("percent", percent).build();
        } catch (IOException e) {
            return Jsonp.createObjectBuilder().add("total", 0).add("used", 0).add("free", 0).add("percent", 0.0)
                    .build();
        }
    }

    /** Python's {@code round(x, 1)}: half to even on the double's exact value. */
    static double round1(double value) {
        return new BigDecimal(value).setScale(1, RoundingMode.HALF_EVEN).doubleValue();
    }

    /**
     * {@code Name: value [unit]} lines (/proc/self/status, /proc/meminfo, /proc/self/io) as numbers;
     * a file that cannot be read has no fields.
     */
    static Map<String, Long> fields(Path file) {
        Map<String, Long> fields = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String[] value = line.substring(colon + 1).strip().split("\\s+");
                try {
                    fields.put(line.substring(0, colon).strip(), Long.parseLong(value[0]));
                } catch (NumberFormatException e) {
                    // not a number (e.g. a name or a list): not one of ours
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return fields;
    }
}
