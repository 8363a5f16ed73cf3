package dev.dockyard.application;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import org.junit.jupiter.api.Test;

/** A backend failure as a use case answers it: an engine that did not answer is a node unavailable for a moment. */
class RefusedTest {

    @Test
    void shouldAnswerAnEngineThatDoesNotAnswerAsANodeUnavailableForAMoment() {
        Refused unreachable = Refused.ofBackend(new EngineUnreachableException("the Docker engine of node 'local' "
                + "does not answer (SocketException)", null), "Runtime rt-1 could not be paused");
        assertEquals(Refused.Reason.NODE_UNAVAILABLE, unreachable.reason());
        assertEquals(5, unreachable.retryAfterSeconds());
        assertEquals("Runtime rt-1 could not be paused", unreachable.getMessage());

        Refused failed = Refused.ofBackend(new BackendException("Docker could not pause the container: 500"), "x");
        assertEquals(Refused.Reason.BACKEND_FAILED, failed.reason());
        assertEquals(0, failed.retryAfterSeconds(), "an engine that answered with an error is no reason to come back");
    }
}
