package dev.dockyard.runtime.provisioning;

import java.util.Arrays;
import java.util.Optional;

/** The steps of bringing a runtime up, named in the ERROR message of the one that failed. */
public enum ProvisioningStep {
    /** The user's provider credentials validated (and refreshed) before anything is created. */
    CREDENTIALS("credentials"),
    /** The runtime image: the requested one if it is one, else found or built from it as a base. */
    IMAGE("image"),
    /** Waiting for the node's turn to boot one more sandbox (BootTurns): the readiness limit counts from it. */
    TURN("turn"),
    CREATE("create"),
    /** A migration only: the old runtime's workspace copied into the created sandbox. */
    WORKSPACE("workspace"),
    START("start"),
    /** Recording where the started sandbox is reached: the first database write after Docker acted. */
    RECORD("record"),
    READINESS("readiness"),
    /** Configuration and secrets pushed into the ready sandbox through its executor. */
    INJECT("inject"),
    /** The repository cloned into the workspace, its branch, its setup script (when one was asked for). */
    REPOSITORY("repository"),
    LIMITS("limits");

    private final String label;

    ProvisioningStep(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static Optional<ProvisioningStep> byLabel(String label) {
        return Arrays.stream(values()).filter(s -> s.label.equals(label)).findFirst();
    }
}
