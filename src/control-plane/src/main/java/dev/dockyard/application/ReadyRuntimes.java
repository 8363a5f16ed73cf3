package dev.dockyard.application;

import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.Provisioner;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;

/** The one rule every use case that reaches into a sandbox shares: READY, and not being migrated. */
@ApplicationScoped
public class ReadyRuntimes {

    @Inject
    Provisioner provisioner;

    /** The runtime itself when it may take actions and transfers now; refused otherwise. */
    public SandboxRuntime require(SandboxRuntime runtime) {
        String id = runtime.id();
        if (provisioner.isMigrating(id)) {
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated to another node; "
                    + "its workspace is being copied, so it takes no actions until the move ends");
        }
        if (runtime.status() != RuntimeStatus.READY || runtime.executorUrl() == null) {
            throw new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " is " + runtime.status()
                    + "; this needs READY").with("status", Json.createValue(runtime.status().name()));
        }
        return runtime;
    }
}
