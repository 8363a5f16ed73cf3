package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which of the engine's refusals of a start mean it keeps a task left over by a start that
 * containerd's going away cut off (the container is replaced, see {@link ContainerReplacement})
 * and which are other failures. The first is the soak's of 2026-12-01 02:45, the second what the
 * same state answers when the task's directory is all that is left (moby/moby#50040).
 */
class StaleTaskAnswersTest {

    @Test
    void shouldReadTheEnginesWordsForATaskLeftOver() {
        assertTrue(ContainerReplacement.staleTask("Status 500: {\"message\":\"task "
                + "166834d70fa70fc3f195f2f9fe8df1c8bdb7e63e646f9b643547432376b87baa: already exists\"}"));
        assertTrue(ContainerReplacement.staleTask("Status 500: {\"message\":\"failed to start shim: mkdir "
                + "/var/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby/"
                + "1e1e0a5c5121e9cba6544ce456ea6d9f2397c7eb3749bd1291fa071a649960e1: file exists: unknown\"}"));
    }

    @Test
    void shouldKeepAnyOtherRefusalAFailure() {
        assertFalse(ContainerReplacement.staleTask("Status 500: {\"message\":\"driver failed programming external "
                + "connectivity on endpoint dockyard-rt-1: listen tcp4 127.7.0.3:32768: bind: address already in use\"}"));
        assertFalse(ContainerReplacement.staleTask("Status 409: {\"message\":\"Conflict. The container name "
                + "\\\"/dockyard-rt-1\\\" is already in use by container \\\"3f2a\\\"\"}"));
        assertFalse(ContainerReplacement.staleTask("Status 500: {\"message\":\"transport is closing: unavailable\"}"));
    }
}
