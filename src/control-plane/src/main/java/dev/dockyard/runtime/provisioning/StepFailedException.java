package dev.dockyard.runtime.provisioning;

/** A provisioning step failed; its message is what the runtime's ERROR status says. */
public class StepFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ProvisioningStep step;

    public StepFailedException(ProvisioningStep step, String reason, Throwable cause) {
        super("Provisioning failed at step '" + step.label() + "': " + reason, cause);
        this.step = step;
    }

    public ProvisioningStep step() {
        return step;
    }
}
