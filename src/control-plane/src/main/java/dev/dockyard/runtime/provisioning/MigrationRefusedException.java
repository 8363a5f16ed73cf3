package dev.dockyard.runtime.provisioning;

/** The runtime cannot be migrated now (not READY, already moving, nowhere to go): a 409 for the caller. */
public class MigrationRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MigrationRefusedException(String message) {
        super(message);
    }
}
