package dev.dockyard.application;

import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.RuntimeGates;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;

/**
 * The one rule every use case that reaches into a sandbox shares: READY, and not being migrated.
 * Admission goes through the runtime's gate ({@link RuntimeGates}) and is held while the work
 * runs, so a migration cannot start between the check and the work, and waits for it to end.
 */
@ApplicationScoped
public class ReadyRuntimes {

    @Inject
    RuntimeGates gates;

    /**
     * Admits an action or transfer into the runtime; the pass is held until the work is done.
     *
     * @throws Refused when the runtime is being migrated or is not READY
     */
    public RuntimeGates.Pass admit(SandboxRuntime runtime) {
        String id = runtime.id();
        if (runtime.program().isPresent()) {
            // its own server, not Dockyard's executor: its clients talk to it through its service URL
            throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " runs its image's own program, "
                    + "not Dockyard's executor: reach it through its service URL (the Remote Runtime API's url)");
        }
        RuntimeGates.Pass pass;
        try {
            pass = gates.enterAction(id);
        } catch (RuntimeGates.RuntimeBusyException e) {
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated to another node; "
                    + "its workspace is being copied, so it takes no actions until the move ends");
        }
        if (runtime.status() != RuntimeStatus.READY || runtime.executorUrl() == null) {
            pass.close();
            throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " is " + runtime.status()
                    + "; this needs READY").with("status", Json.createValue(runtime.status().name()));
        }
        return pass;
    }
}
