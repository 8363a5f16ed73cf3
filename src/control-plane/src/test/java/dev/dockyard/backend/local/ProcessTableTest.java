package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessTableTest {

    @TempDir
    Path proc;

    private void process(long pid, char state, long startTime, String environ) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (java) " + state + " 1 " + pid + " " + pid
                + " 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " + startTime + " 0 0 0");
        Files.write(dir.resolve("environ"), environ.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldFindTheProcessesCarryingTheSandboxVariableOnly() throws Exception {
        process(100, 'S', 5000, "PATH=/bin\0DOCKYARD_SANDBOX=sb-1\0");
        process(101, 'S', 5001, "DOCKYARD_SANDBOX=sb-1\0HOME=/x\0");
        process(102, 'S', 5002, "DOCKYARD_SANDBOX=sb-10\0");
        process(103, 'S', 5003, "XDOCKYARD_SANDBOX=sb-1\0");
        process(104, 'Z', 5004, "DOCKYARD_SANDBOX=sb-1\0");
        Files.createDirectories(proc.resolve("self"));
        List<Long> found = new ProcessTable(proc).carrying("DOCKYARD_SANDBOX", "sb-1", null);
        assertEquals(List.of(100L, 101L), found.stream().sorted().toList());
    }

    @Test
    void shouldTakeARecordedPidWithAnotherStartTimeForAnotherProcess() throws Exception {
        process(200, 'S', 7000, "");
        ProcessTable table = new ProcessTable(proc);
        assertTrue(table.alive(new ProcessIdentity(200, 7000)));
        assertFalse(table.alive(new ProcessIdentity(200, 6999)));
        assertFalse(table.alive(new ProcessIdentity(201, 7000)));
        assertEquals(7000, table.identify(200).orElseThrow().startTime());
    }

    @Test
    void shouldMatchWholeEnvironmentEntriesOnly() {
        byte[] entry = "A=b".getBytes(StandardCharsets.UTF_8);
        assertTrue(ProcessTable.holds("A=b".getBytes(StandardCharsets.UTF_8), entry));
        assertTrue(ProcessTable.holds("X=1\0A=b\0".getBytes(StandardCharsets.UTF_8), entry));
        assertFalse(ProcessTable.holds("A=bc\0".getBytes(StandardCharsets.UTF_8), entry));
        assertFalse(ProcessTable.holds("XA=b\0".getBytes(StandardCharsets.UTF_8), entry));
    }

    @Test
    void shouldFindAndSignalRealProcessesOfTheHost() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("sleep", "60");
        builder.environment().putAll(Map.of("DOCKYARD_SANDBOX", "table-test-" + ProcessHandle.current().pid()));
        Process sleep = builder.start();
        try {
            ProcessTable host = ProcessTable.host();
            assertEquals(List.of(sleep.pid()), host.carrying("DOCKYARD_SANDBOX", "table-test-" + ProcessHandle.current()
                    .pid(), null));
            host.signal("KILL", List.of(sleep.pid()));
            assertTrue(sleep.waitFor(10, TimeUnit.SECONDS));
            assertEquals(137, sleep.exitValue());
        } finally {
            sleep.destroyForcibly();
        }
    }
}
