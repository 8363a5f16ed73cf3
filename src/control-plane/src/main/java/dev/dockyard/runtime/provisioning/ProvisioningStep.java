package dev.dockyard.runtime.provisioning;

/** The steps of bringing a runtime up, named in the ERROR message of the one that failed. */
public enum ProvisioningStep {
    CREATE("create"),
    START("start"),
    READINESS("readiness"),
    LIMITS("limits");

    private final String label;

    ProvisioningStep(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
