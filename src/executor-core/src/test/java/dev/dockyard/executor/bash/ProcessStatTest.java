package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProcessStatTest {

    private static final String TAIL = " 4194304 101 0 0 0 0 0 0 0 20 0 1 0 1200683 3133440 386 18446744073709551615 0 0";

    @Test
    void shouldReadTheFieldsAfterTheCommandName() {
        ProcessStat stat = ProcessStat.parse("8681 (cat) R 8678 8677 5439 34816 8677" + TAIL).orElseThrow();
        assertEquals(new ProcessStat(8681, 'R', 8678, 8677, 8677, 1200683), stat);
    }

    @Test
    void shouldCountFromTheLastParenthesisOfANameWithSpacesAndParentheses() {
        ProcessStat stat = ProcessStat.parse("12 (a) T 9 (x) T 3 12 5 0 0" + TAIL).orElseThrow();
        assertEquals('T', stat.state());
        assertEquals(3, stat.parent());
        assertEquals(12, stat.group());
        assertEquals(0, stat.terminalGroup());
        assertTrue(stat.stopped());
    }

    @Test
    void shouldTellTheTimeOnTheClockOfStartTimes() {
        long before = ProcessStat.ticksNow();
        ProcessHandle started = ProcessHandle.current();
        assertTrue(before > 0);
        assertTrue(ProcessStat.of(started.pid()).orElseThrow().startTicks() <= before, "this JVM started earlier");
    }

    @Test
    void shouldKnowTheLastProcessIdHandedOut() throws Exception {
        Process started = new ProcessBuilder("true").start();
        try {
            long last = ProcessStat.lastPid();
            assertTrue(last > 0);
            // ids wrap around on a busy machine: the last one is this process's or one handed out after it
            assertTrue(last >= started.pid() || last < 1000, started.pid() + " then " + last);
        } finally {
            started.waitFor();
        }
    }

    @Test
    void shouldRefuseATruncatedOrMalformedLine() {
        assertTrue(ProcessStat.parse("12 (bash) S 1 2 2 0 0").isEmpty());
        assertTrue(ProcessStat.parse("no parenthesis here").isEmpty());
        assertTrue(ProcessStat.parse("x (bash) S 1 2 2 0 0" + TAIL).isEmpty());
    }

    @Test
    void shouldReadThisProcessFromProc() {
        ProcessStat self = ProcessStat.of(ProcessHandle.current().pid()).orElseThrow();
        assertEquals(ProcessHandle.current().pid(), self.pid());
        assertTrue(self.startTicks() > 0);
        assertTrue(ProcessStat.of(Long.MAX_VALUE).isEmpty(), "a process that does not exist");
    }
}
