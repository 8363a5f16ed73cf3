package dev.dockyard.runtime.provisioning;

import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeSecrets;
import java.time.Clock;

/** The real journal over the in-memory runtime table (its transactions are the caller's business here). */
public final class Journals {

    private Journals() {
    }

    public static ProvisioningJournal over(FakeRuntimes runtimes, Clock clock, RuntimeSecrets secrets) {
        return over(new ProvisioningJournal(), runtimes, clock, secrets);
    }

    /** The given journal (a subclass a test made, e.g. to fail one transaction) wired the same way. */
    public static ProvisioningJournal over(ProvisioningJournal journal, FakeRuntimes runtimes, Clock clock,
                                           RuntimeSecrets secrets) {
        journal.runtimes = runtimes;
        journal.clock = clock;
        journal.secrets = secrets;
        // no transaction registry: what waits for a commit runs at once (a test may set one)
        journal.compensation = new SandboxCompensation();
        return journal;
    }
}
