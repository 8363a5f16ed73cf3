package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SandboxRecordTest {

    private final SandboxRecord created = new SandboxRecord("dockyard-rt-1", Labels.of("rt-1", "conv=1\nx", "cp-a"), 0,
            Instant.parse("2026-11-25T16:00:00Z"), null, false, 1024);

    @Test
    void shouldReadBackWhatItWrote() {
        SandboxRecord running = created.running(new ProcessIdentity(31337, 123456789L), 41234).frozen(true);
        SandboxRecord read = SandboxRecord.parse(running.format()).orElseThrow();
        assertEquals(running, read);
        assertEquals("conv=1\nx", read.labels().get(Labels.CONVERSATION_ID));
        assertEquals(new ProcessIdentity(31337, 123456789L), read.process());
        assertEquals(1024, read.memoryMb());
    }

    @Test
    void shouldKeepItsExecutorServerThroughEveryChangeAndReadAnOlderRecordAsSayingNone() {
        SandboxRecord liberty = new SandboxRecord("dockyard-rt-2", Labels.of("rt-2", "c", "cp-a"), 0,
                Instant.parse("2026-11-25T16:00:00Z"), null, false, 512, ExecutorServer.LIBERTY);
        SandboxRecord revived = SandboxRecord.parse(liberty.running(new ProcessIdentity(5, 6), 40000).stopped()
                .running(new ProcessIdentity(7, 8), 40001).frozen(true).format()).orElseThrow();
        assertEquals(ExecutorServer.LIBERTY, revived.executorServer());
        assertTrue(liberty.format().contains("executor-server=liberty"), liberty.format());

        // written before the choice existed: no line, no server (the backend starts such a sandbox on Liberty)
        String older = created.format();
        assertFalse(older.contains("executor-server"), older);
        assertNull(SandboxRecord.parse(older).orElseThrow().executorServer());
    }

    @Test
    void shouldForgetTheProcessOfAStoppedSandboxButKeepItsPort() {
        SandboxRecord stopped = SandboxRecord.parse(created.running(new ProcessIdentity(5, 6), 40000).stopped().format())
                .orElseThrow();
        assertNull(stopped.process());
        assertEquals(40000, stopped.port());
    }

    @Test
    void shouldRefuseATornOrForeignFile() {
        String whole = created.running(new ProcessIdentity(5, 6), 40000).format();
        assertTrue(SandboxRecord.parse("").isEmpty());
        assertTrue(SandboxRecord.parse("hello=world").isEmpty());
        assertTrue(SandboxRecord.parse(whole.replace("start-time=6", "start-time=six")).isEmpty());
        assertTrue(SandboxRecord.parse(whole.replaceAll("port=40000", "")).isEmpty());
    }
}
