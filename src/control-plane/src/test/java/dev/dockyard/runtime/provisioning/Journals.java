package dev.dockyard.runtime.provisioning;

import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeSecrets;
import java.time.Clock;

/** The real journal over the in-memory runtime table (its transactions are the caller's business here). */
public final class Journals {

    private Journals() {
    }

    public static ProvisioningJournal over(FakeRuntimes runtimes, Clock clock, RuntimeSecrets secrets) {
        ProvisioningJournal journal = new ProvisioningJournal();
        journal.runtimes = runtimes;
        journal.clock = clock;
        journal.secrets = secrets;
        return journal;
    }
}
