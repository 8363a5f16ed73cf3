package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ForegroundJobTest {

    private static final ProcessStat SHELL = new ProcessStat(100, 'S', 99, 100, 0, 500);

    private static ProcessStat child(long pid, long group, char state, long started) {
        return new ProcessStat(pid, state, 100, group, 0, started);
    }

    @Test
    void shouldPickTheGroupOfTheJobTheCommandStarted() {
        ForegroundJob job = ForegroundJob.of(SHELL, List.of(child(130, 130, 'S', 900)), Set.of());
        assertEquals(new ForegroundJob(130, true), job);
        assertEquals("-130", job.killTarget());
    }

    @Test
    void shouldLeaveBackgroundJobsOfEarlierCommandsAlone() {
        List<ProcessStat> children = List.of(child(120, 120, 'S', 800), child(130, 130, 'S', 700));
        assertEquals(new ForegroundJob(130, true), ForegroundJob.of(SHELL, children, Set.of(120L)));
    }

    @Test
    void shouldPickTheNewestJobWhenTheCommandStartedSeveral() {
        // `sleep 100 & sleep 200`: the second is the one the shell waits for
        List<ProcessStat> children = List.of(child(131, 131, 'S', 900), child(132, 132, 'S', 900),
                child(140, 131, 'S', 901));
        assertEquals(new ForegroundJob(131, true), ForegroundJob.of(SHELL, children, Set.of()));
        assertEquals(new ForegroundJob(132, true),
                ForegroundJob.of(SHELL, List.of(child(131, 131, 'S', 900), child(132, 132, 'S', 900)), Set.of()));
    }

    @Test
    void shouldSkipStoppedJobs() {
        assertEquals(new ForegroundJob(130, true), ForegroundJob.of(SHELL,
                List.of(child(130, 130, 'S', 700), child(150, 150, 'T', 900)), Set.of()));
    }

    @Test
    void shouldSignalTheShellItselfWhenItRunsABuiltin() {
        ForegroundJob job = ForegroundJob.of(SHELL, List.of(child(120, 120, 'S', 800)), Set.of(120L));
        assertEquals(new ForegroundJob(100, false), job);
        assertEquals("100", job.killTarget());
    }

    @Test
    void shouldSignalTheShellsGroupWithJobControlOff() {
        assertEquals(new ForegroundJob(100, true), ForegroundJob.of(SHELL, List.of(child(130, 100, 'S', 900)), Set.of()));
    }
}
