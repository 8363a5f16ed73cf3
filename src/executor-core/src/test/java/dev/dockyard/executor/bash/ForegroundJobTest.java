package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ForegroundJobTest {

    private static final ProcessStat SHELL = new ProcessStat(100, 'S', 99, 100, 0, 500);
    /** Typed at tick 850, when the last process id handed out was 125. */
    private static final ForegroundJob.Typed TYPED = new ForegroundJob.Typed(125, 850, Set.of());

    private static ProcessStat child(long pid, long group, char state, long started) {
        return new ProcessStat(pid, state, 100, group, 0, started);
    }

    @Test
    void shouldPickTheGroupOfTheJobTheCommandStarted() {
        ForegroundJob job = ForegroundJob.of(SHELL, List.of(child(130, 130, 'S', 900)), TYPED);
        assertEquals(new ForegroundJob(130, true), job);
        assertEquals("-130", job.killTarget());
    }

    @Test
    void shouldLeaveBackgroundJobsOfEarlierCommandsAlone() {
        List<ProcessStat> children = List.of(child(120, 120, 'S', 700), child(130, 130, 'S', 900));
        assertEquals(new ForegroundJob(130, true), ForegroundJob.of(SHELL, children, TYPED));
    }

    @Test
    void shouldTellJobsStartedInTheSameHundredthByTheirIds() {
        // `sleep 300 &` answered, the next command typed at once: both started at tick 850
        List<ProcessStat> children = List.of(child(120, 120, 'S', 850), child(126, 126, 'S', 850));
        assertEquals(new ForegroundJob(126, true), ForegroundJob.of(SHELL, children, TYPED));
        assertEquals(new ForegroundJob(100, false), ForegroundJob.of(SHELL, List.of(child(120, 120, 'S', 850)), TYPED));
    }

    @Test
    void shouldTellJobsStartedInTheHundredthBeforeARoundedReadingByTheirIds() {
        // gVisor's /proc/uptime is rounded: typed at 8.496 s reads 8.50, a job started at 8.498 s says 849
        assertTrue(TYPED.before(child(126, 126, 'S', 849)));
        assertFalse(TYPED.before(child(120, 120, 'S', 849)));
        assertFalse(TYPED.before(child(126, 126, 'S', 848)), "two hundredths before: an earlier job whatever its id");
        assertEquals(new ForegroundJob(126, true), ForegroundJob.of(SHELL,
                List.of(child(120, 120, 'S', 849), child(126, 126, 'S', 849)), TYPED));
    }

    @Test
    void shouldGoByTicksWhateverTheIdsOnceTheyWrappedAround() {
        assertTrue(TYPED.before(child(7, 7, 'S', 851)));
        assertFalse(TYPED.before(child(32000, 32000, 'S', 840)));
    }

    @Test
    void shouldGoByTicksAloneWhenTheIdsWereUnknown() {
        ForegroundJob.Typed unknownIds = new ForegroundJob.Typed(0, 850, Set.of());
        assertTrue(unknownIds.before(child(120, 120, 'S', 850)));
        assertTrue(unknownIds.before(child(120, 120, 'S', 849)), "the reading may have been rounded up");
        assertFalse(unknownIds.before(child(120, 120, 'S', 848)));
    }

    @Test
    void shouldTakeAStoppedJobThatFgResumedForTheForeground() {
        List<ProcessStat> atTyping = List.of(child(120, 120, 'T', 700), child(121, 121, 'S', 710));
        ForegroundJob.Typed fg = ForegroundJob.Typed.now("fg", () -> atTyping);
        assertEquals(Set.of(120L), fg.resumable());
        List<ProcessStat> now = List.of(child(120, 120, 'S', 700), child(121, 121, 'S', 710));
        assertEquals(new ForegroundJob(120, true), ForegroundJob.of(SHELL, now, fg));
        assertEquals(Set.of(120L), ForegroundJob.Typed.now("echo back; %1", () -> atTyping).resumable());
    }

    @Test
    void shouldListNoJobsForACommandThatResumesNone() {
        ForegroundJob.Typed typed = ForegroundJob.Typed.now("echo 50% of configfg", () -> {
            throw new AssertionError("listed the jobs");
        });
        assertEquals(Set.of(), typed.resumable());
    }

    @Test
    void shouldPickTheNewestJobWhenTheCommandStartedSeveral() {
        // `sleep 100 & sleep 200`: the second is the one the shell waits for
        List<ProcessStat> children = List.of(child(131, 131, 'S', 900), child(132, 132, 'S', 900),
                child(140, 131, 'S', 901));
        assertEquals(new ForegroundJob(131, true), ForegroundJob.of(SHELL, children, TYPED));
        assertEquals(new ForegroundJob(132, true),
                ForegroundJob.of(SHELL, List.of(child(131, 131, 'S', 900), child(132, 132, 'S', 900)), TYPED));
    }

    @Test
    void shouldSkipStoppedJobs() {
        assertEquals(new ForegroundJob(130, true), ForegroundJob.of(SHELL,
                List.of(child(130, 130, 'S', 900), child(150, 150, 'T', 950)), TYPED));
    }

    @Test
    void shouldSignalTheShellItselfWhenItRunsABuiltin() {
        ForegroundJob job = ForegroundJob.of(SHELL, List.of(child(120, 120, 'S', 700)), TYPED);
        assertEquals(new ForegroundJob(100, false), job);
        assertEquals("100", job.killTarget());
    }

    @Test
    void shouldSignalTheShellsGroupWithJobControlOff() {
        assertEquals(new ForegroundJob(100, true), ForegroundJob.of(SHELL, List.of(child(130, 100, 'S', 900)), TYPED));
    }
}
