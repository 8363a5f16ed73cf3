package dev.dockyard.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcStatTest {

    private static final String SLEEP = "4242 (sleep) S 1 4242 4242 0 -1 4194560 93 0 0 0 0 0 0 0 20 0 1 0 "
            + "987654 2568192 128 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    @Test
    void shouldReadStateSessionAndStartTime() {
        ProcStat stat = ProcStat.parse(SLEEP).orElseThrow();
        assertEquals('S', stat.state());
        assertEquals(1, stat.parent());
        assertEquals(4242, stat.session());
        assertEquals(987654, stat.startTime());
        assertFalse(stat.exited());
    }

    @Test
    void shouldCountFieldsAfterACommandNameWithSpacesAndParentheses() {
        ProcStat stat = ProcStat.parse(SLEEP.replace("(sleep)", "(a) b (c) d)")).orElseThrow();
        assertEquals(987654, stat.startTime());
        assertEquals(4242, stat.session());
    }

    @Test
    void shouldTakeAZombieForAnExitedProcess() {
        assertTrue(ProcStat.parse(SLEEP.replace(") S ", ") Z ")).orElseThrow().exited());
        assertTrue(ProcStat.parse(SLEEP.replace(") S ", ") T ")).orElseThrow().stopped());
    }

    @Test
    void shouldRefuseWhatIsNoStatLine() {
        assertTrue(ProcStat.parse("").isEmpty());
        assertTrue(ProcStat.parse("12 (x) S 1 2").isEmpty());
        assertTrue(ProcStat.parse(SLEEP.replace("987654", "soon")).isEmpty());
    }

    @Test
    void shouldReadThisProcessFromTheRealProc() throws Exception {
        long pid = ProcessHandle.current().pid();
        ProcStat stat = ProcStat.parse(Files.readString(Path.of("/proc/" + pid + "/stat"))).orElseThrow();
        assertTrue(stat.startTime() > 0);
        assertFalse(stat.exited());
    }

    @Test
    void shouldTellAReusedPidFromTheRecordedProcess() {
        ProcStat now = ProcStat.parse(SLEEP).orElseThrow();
        assertTrue(new ProcessIdentity(4242, 987654).aliveAs(now));
        assertFalse(new ProcessIdentity(4242, 987653).aliveAs(now), "same pid, other start time: another process");
        assertFalse(new ProcessIdentity(4242, 987654).aliveAs(null), "no such pid");
        assertFalse(new ProcessIdentity(4242, 987654).aliveAs(ProcStat.parse(SLEEP.replace(") S ", ") Z ")).orElseThrow()));
    }
}
