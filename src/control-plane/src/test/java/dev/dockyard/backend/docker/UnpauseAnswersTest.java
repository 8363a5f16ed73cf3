package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which of the engine's 500s to an unpause mean the container runs already (thawed is what was
 * asked) and which are failures. The second was Docker's answer to an E2B connect while the soak
 * restarted the engine (2026-11-30), answered {@code 503} without {@code Retry-After} then.
 */
class UnpauseAnswersTest {

    @Test
    void shouldTakeARunningContainerForAThawedOne() {
        assertTrue(ContainerLifecycle.runningAlready("Status 500: {\"message\":\"Container 3f2a is not paused\"}"));
        assertTrue(ContainerLifecycle.runningAlready("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "cannot resume a running container: unknown\"}"));
        // containerd's shim's own words (its running state's Resume), the soak of 2026-12-01 02:16:
        // an E2B connect answered 503 without Retry-After
        assertTrue(ContainerLifecycle.runningAlready("Status 500: {\"message\":\"Cannot unpause container f93c: "
                + "cannot resume a running process: unknown\"}"));
    }

    /** containerd's shim's words for the other states a pause or resume can meet. */
    @Test
    void shouldReadContainerdsWordsForAFrozenAndANotStartedTask() {
        assertTrue(ContainerLifecycle.frozenAlready("Status 500: {\"message\":\"Cannot pause container 3f2a: "
                + "cannot pause a paused container: unknown\"}"));
        assertFalse(ContainerLifecycle.frozenAlready("Status 500: {\"message\":\"Cannot pause container 3f2a: "
                + "cannot pause a stopped container: unknown\"}"));
        assertTrue(ContainerLifecycle.stoppedBelow("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "cannot resume task in created state: unknown\"}"));
    }

    @Test
    void shouldKeepAnyOtherRefusalAFailure() {
        assertFalse(ContainerLifecycle.runningAlready("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "OCI runtime resume failed: unable to thaw: unknown\"}"));
        assertFalse(ContainerLifecycle.runningAlready("Status 500: {\"message\":\"container 3f2a is not running\"}"));
    }

    /**
     * The engine's answers to a pause and a resume while it stopped its containers (the soak's
     * engine restart, 2026-11-30 21:30): the container had stopped below the engine's record. They
     * answered 502 and E2B's 503 without Retry-After; a stopped sandbox is being recovered.
     */
    @Test
    void shouldTakeAContainerStoppedBelowTheEnginesRecordForOneNotRunning() {
        assertTrue(ContainerLifecycle.stoppedBelow("Status 500: {\"message\":\"Cannot pause container 66299d2db9d6: "
                + "cannot pause a stopped container: unknown\"}"));
        assertTrue(ContainerLifecycle.stoppedBelow("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "cannot resume a stopped container: unknown\"}"));
        assertFalse(ContainerLifecycle.stoppedBelow("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "cannot resume a running container: unknown\"}"));
        assertFalse(ContainerLifecycle.stoppedBelow("Status 500: {\"message\":\"Cannot unpause container 3f2a: "
                + "OCI runtime resume failed: unable to thaw: unknown\"}"));
    }
}
