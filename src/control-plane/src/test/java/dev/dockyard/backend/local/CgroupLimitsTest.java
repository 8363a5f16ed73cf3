package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against directories laid out like cgroup hierarchies: what the files get written. */
class CgroupLimitsTest {

    @TempDir
    Path root;

    @Test
    void shouldSetMemoryCpuAndPidsLimitsInTheSandboxesOwnCgroupV2() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        Files.writeString(root.resolve("cgroup.subtree_control"), "cpu memory pids\n");
        CgroupLimits limits = CgroupLimits.probe(root, "dockyard-it-local1");
        assertTrue(limits.enabled(), String.valueOf(limits.reason()));
        assertEquals("cgroup v2", limits.kind());
        Path cgroup = limits.prepare("sb-1", 1.5, 512, 256).get(0);
        assertEquals(root.resolve("dockyard-it-local1/sb-1"), cgroup);
        assertEquals(List.of(cgroup), limits.paths("sb-1"));
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
    void shouldNestV1GroupsUnderTheControlPlanesOwnCgroups() throws Exception {
        for (String controller : List.of("memory", "cpu", "pids")) {
            Files.createDirectories(root.resolve(controller));
            Files.writeString(root.resolve(controller).resolve("cgroup.procs"), "");
        }
        Files.createDirectories(root.resolve("memory/agents/a1"));
        Path self = root.resolve("self-cgroup");
        Files.writeString(self, "9:name=systemd:/\n8:pids:/\n4:memory:/agents/a1\n1:cpu,cpuacct:/\n0::/\n");
        CgroupLimits limits = CgroupLimits.probe(root, "dockyard-it-local1", self);
        assertTrue(limits.enabled(), String.valueOf(limits.reason()));
        assertEquals("cgroup v1", limits.kind());
        List<Path> made = limits.prepare("sb-1", 2, 256, 100);
        assertEquals(List.of(root.resolve("cpu/dockyard-it-local1/sb-1"), root.resolve("memory/agents/a1/dockyard-it-local1/sb-1"),
                root.resolve("pids/dockyard-it-local1/sb-1")), made);
        assertEquals("268435456", Files.readString(made.get(1).resolve("memory.limit_in_bytes")));
        assertEquals("200000", Files.readString(made.get(0).resolve("cpu.cfs_quota_us")));
        assertEquals("100000", Files.readString(made.get(0).resolve("cpu.cfs_period_us")));
        assertEquals("100", Files.readString(made.get(2).resolve("pids.max")));
        limits.cpus("sb-1", 0);
        assertEquals("-1", Files.readString(made.get(0).resolve("cpu.cfs_quota_us")));
        Files.writeString(made.get(2).resolve("cgroup.procs"), "7\n");
        Files.writeString(made.get(1).resolve("cgroup.procs"), "7\n8\n");
        assertEquals(List.of(7L, 8L), limits.members("sb-1").stream().sorted().toList());
    }

    @Test
    void shouldReadEachControllersOwnCgroup() {
        assertEquals(Map.of("name=systemd", "/", "pids", "/", "memory", "/x/y", "cpu", "/", "cpuacct", "/"),
                CgroupLimits.ownCgroups(List.of("9:name=systemd:/", "8:pids:/", "4:memory:/x/y", "1:cpu,cpuacct:/",
                        "0::/")));
    }

    @Test
    void shouldBeOffWithAReasonWhereTheHostHasNoCgroups() throws Exception {
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
        assertEquals("-1", CgroupLimits.cfsQuota(0));
    }
}
