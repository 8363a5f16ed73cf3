package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessTableTest {

    @TempDir
    Path proc;

    private void process(long pid, char state, long startTime, String environ) throws Exception {
        process(pid, 1, state, startTime, environ);
    }

    private void process(long pid, long parent, char state, long startTime, String environ) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (java) " + state + " " + parent + " " + pid + " " + pid
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

    private static final String TCP = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1001 1 0 100 0 0 10 0
               1: 00000000:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0 100 0 0 10 0
               2: 0200007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1003 1 0 100 0 0 10 0
               3: 0100007F:9C41 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1004 1 0 100 0 0 10 0
               4: 0100007F:9C40 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 1005 1 0 20 4 0 10 -1
            """;
    private static final String TCP6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0000000000000000FFFF00000100007F:9C40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2001 1 0 100 0 0 10 0
               1: 00000000000000000000000000000000:9C40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2002 1 0 100 0 0 10 0
               2: 00000000000000000000000001000000:9C40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2003 1 0 100 0 0 10 0
            """;

    @Test
    void shouldFindTheListenersAConnectionTo127001MayReach() throws Exception {
        // the kernel prints each 32-bit word of an address in the host's byte order: these are a little-endian host's
        assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
        assertEquals(Set.of(1001L, 1002L), ProcessTable.listening(TCP, 40000));
        assertEquals(Set.of(1004L), ProcessTable.listening(TCP, 40001));
        // v4-mapped 127.0.0.1 and any address; ::1 is not reached by 127.0.0.1
        assertEquals(Set.of(2001L, 2002L), ProcessTable.listening(TCP6, 40000));
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/tcp"), TCP);
        assertEquals(Set.of(1001L, 1002L), new ProcessTable(proc).listeners(40000), "no tcp6 table: IPv4 alone");
        Files.writeString(proc.resolve("net/tcp6"), TCP6);
        assertEquals(Set.of(1001L, 1002L, 2001L, 2002L), new ProcessTable(proc).listeners(40000));
    }

    @Test
    void shouldFindADescendantsSocketsByTheirParents() throws Exception {
        process(300, 1, 'S', 1, "");
        process(301, 300, 'S', 2, "");
        process(302, 301, 'S', 3, "");
        process(303, 1, 'S', 4, "");
        Path fds = Files.createDirectories(proc.resolve("302/fd"));
        Files.createSymbolicLink(fds.resolve("0"), Path.of("/dev/null"));
        Files.createSymbolicLink(fds.resolve("7"), Path.of("socket:[1001]"));
        Files.createSymbolicLink(fds.resolve("8"), Path.of("pipe:[1002]"));
        ProcessTable table = new ProcessTable(proc);
        assertEquals(Set.of(300L, 301L, 302L), table.descendants(300));
        assertEquals(Set.of(1001L), table.sockets(302));
        assertEquals(Set.of(), table.sockets(303), "no fd directory it may read");
    }

    @Test
    void shouldFindTheSocketThisProcessListensOn() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ProcessTable host = ProcessTable.host();
            Set<Long> listening = host.listeners(socket.getLocalPort());
            assertEquals(1, listening.size());
            assertTrue(host.sockets(ProcessHandle.current().pid()).containsAll(listening));
            assertTrue(host.descendants(ProcessHandle.current().parent().orElseThrow().pid())
                    .contains(ProcessHandle.current().pid()));
        }
    }
}
