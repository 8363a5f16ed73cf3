package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** server_info's resources as OpenHands' get_system_stats computes them (psutil's rules). */
class ResourceUsageTest {

    @TempDir
    Path proc;

    private ResourceUsage usage(AtomicLong cpu, AtomicLong wall) {
        return new ResourceUsage(proc.resolve("self"), proc.resolve("meminfo"), proc,
                () -> cpu.getAndAdd(37_000_000L), () -> wall.getAndAdd(100_000_000L), Duration.ZERO);
    }

    @Test
    void shouldComputePsutilsNumbersFromProc() throws IOException {
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("self/status"), "Name:\tjava\nVmSize:\t  4000 kB\nVmRSS:\t  1000 kB\n");
        Files.writeString(proc.resolve("meminfo"), "MemTotal:        8000 kB\nMemFree:  10 kB\n");
        Files.writeString(proc.resolve("self/io"), "rchar: 5\nwchar: 6\nread_bytes: 4096\nwrite_bytes: 8192\n");
        JsonObject r = usage(new AtomicLong(), new AtomicLong()).measure();
        // 37 ms of CPU in a 100 ms window
        assertEquals(37.0, r.getJsonNumber("cpu_percent").doubleValue());
        assertEquals(1_024_000, r.getJsonObject("memory").getJsonNumber("rss").longValue());
        assertEquals(4_096_000, r.getJsonObject("memory").getJsonNumber("vms").longValue());
        assertEquals(12.5, r.getJsonObject("memory").getJsonNumber("percent").doubleValue());
        assertEquals(4096, r.getJsonObject("io").getJsonNumber("read_bytes").longValue());
        assertEquals(8192, r.getJsonObject("io").getJsonNumber("write_bytes").longValue());
        JsonObject disk = r.getJsonObject("disk");
        long used = disk.getJsonNumber("used").longValue();
        long free = disk.getJsonNumber("free").longValue();
        assertTrue(disk.getJsonNumber("total").longValue() >= used + free);
        assertEquals(ResourceUsage.round1(used * 100.0 / (used + free)), disk.getJsonNumber("percent").doubleValue());
    }

    @Test
    void shouldAnswerZeroIoWhereProcHasNone() {
        JsonObject r = usage(new AtomicLong(), new AtomicLong()).measure();
        assertEquals(0, r.getJsonObject("io").getJsonNumber("read_bytes").longValue());
        assertEquals(0, r.getJsonObject("io").getJsonNumber("write_bytes").longValue());
        assertEquals(0.0, r.getJsonObject("memory").getJsonNumber("percent").doubleValue());
    }

    @Test
    void shouldRoundHalfToEvenLikePython() {
        assertEquals(0.1, ResourceUsage.round1(0.05)); // 0.05 is 0.05000000000000000277 in binary
        assertEquals(0.2, ResourceUsage.round1(0.25));
        assertEquals(0.3, ResourceUsage.round1(0.35)); // 0.34999999999999997780
        assertEquals(12.3, ResourceUsage.round1(12.34));
    }

    @Test
    void shouldMeasureThisProcessForReal() {
        JsonObject r = ResourceUsage.ofThisProcess().measure();
        assertTrue(r.getJsonObject("memory").getJsonNumber("rss").longValue() > 1024 * 1024);
        assertTrue(r.getJsonObject("memory").getJsonNumber("vms").longValue()
                >= r.getJsonObject("memory").getJsonNumber("rss").longValue());
        assertTrue(r.getJsonNumber("cpu_percent").doubleValue() >= 0);
        assertTrue(r.getJsonObject("disk").getJsonNumber("total").longValue() > 0);
    }
}
