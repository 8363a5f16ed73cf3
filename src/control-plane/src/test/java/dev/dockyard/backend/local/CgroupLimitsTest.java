package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against a directory laid out like a cgroup v2 hierarchy: what the files get written. */
class CgroupLimitsTest {

    @TempDir
    Path root;

    @Test
    void shouldSetMemoryCpuAndPidsLimitsInTheSandboxesOwnCgroup() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        Files.writeString(root.resolve("cgroup.subtree_control"), "cpu memory pids\n");
        CgroupLimits limits = CgroupLimits.probe(root, "dockyard-it-local1");
        assertTrue(limits.enabled(), String.valueOf(limits.reason()));
        Path cgroup = limits.prepare("sb-1", 1.5, 512, 256).orElseThrow();
        assertEquals(root.resolve("dockyard-it-local1/sb-1"), cgroup);
        assertEquals("536870912", Files.readString(cgroup.resolve("memory.max")));
        assertEquals("150000 100000", Files.readString(cgroup.resolve("cpu.max")));
        assertEquals("256", Files.readString(cgroup.resolve("pids.max")));
        limits.cpus("sb-1", 0.5);
        assertEquals("50000 100000", Files.readString(cgroup.resolve("cpu.max")));
        Files.writeString(cgroup.resolve("cgroup.procs"), "12\n34\n");
        assertEquals(List.of(12L, 34L), limits.members("sb-1"));
    }

    @Test
    void shouldHandTheControllersDownToTheSandboxes() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpu memory pids");
        CgroupLimits.probe(root, "node");
        // a real cgroupfs keeps the controllers listed; a directory keeps the last write
        assertTrue(Files.readString(root.resolve("node/cgroup.subtree_control")).startsWith("+"));
    }

    @Test
    void shouldBeOffWithAReasonWhereTheHostHasNoCgroupV2() throws Exception {
        CgroupLimits none = CgroupLimits.probe(root, "node");
        assertFalse(none.enabled());
        assertTrue(none.reason().contains("no cgroup v2"), none.reason());
        assertTrue(none.prepare("sb", 1, 1, 1).isEmpty());
        Files.writeString(root.resolve("cgroup.controllers"), "cpu pids");
        assertTrue(CgroupLimits.probe(root, "node").reason().contains("memory"));
    }

    @Test
    void shouldWriteNoQuotaForUnlimitedCpus() {
        assertEquals("max 100000", CgroupLimits.cpuMax(0));
        assertEquals("1000 100000", CgroupLimits.cpuMax(0.001));
    }
}
