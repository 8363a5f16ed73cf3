package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.LlmSettings;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProvisioningJournalTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final RuntimeSecrets secrets = new RuntimeSecrets();
    private final ProvisioningJournal journal = Journals.over(runtimes, clock, secrets);

    private SandboxRuntime stored() {
        SandboxRuntime runtime = new SandboxRuntime("conv", "alice", "docker", "img", 1, 512, 60, clock.instant());
        runtime.configuredFor("CodeActAgent", new LlmSettings("m", null, "sk-llm-canary-1"));
        runtime.withEnvironment(Map.of("DB_PASSWORD", "env-canary-2"));
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        return runtime;
    }

    @Test
    void shouldRecordNoSecretInAnyMessageOrEvent() {
        SandboxRuntime runtime = stored();
        secrets.remember(runtime.id(), List.of("oauth-canary-3"));
        journal.transition(runtime.id(), RuntimeStatus.RUNTIME_STARTED, "started");

        journal.transition(runtime.id(), RuntimeStatus.ERROR, "Provisioning failed at step 'repository': setup.sh "
                + "printed: sk-llm-canary-1 env-canary-2 oauth-canary-3");

        SandboxRuntime failed = runtimes.find(runtime.id()).orElseThrow();
        assertEquals("Provisioning failed at step 'repository': setup.sh printed: [redacted] [redacted] [redacted]",
                failed.statusMessage());
        for (StatusChange change : runtimes.history(runtime.id())) {
            assertFalse(change.message().contains("canary"), change.message());
        }
    }

    @Test
    void shouldRedactConditionalTransitionsAndForgetSecretsOfEndedRuntimes() {
        SandboxRuntime runtime = stored();
        secrets.remember(runtime.id(), List.of("oauth-canary-3"));

        assertTrue(journal.transitionIf(runtime.id(), EnumSet.of(RuntimeStatus.STARTING_RUNTIME), RuntimeStatus.ERROR,
                "died saying oauth-canary-3"));

        assertEquals("died saying [redacted]", runtimes.find(runtime.id()).orElseThrow().statusMessage());
        assertEquals("oauth-canary-3", secrets.redact(runtime.id(), "oauth-canary-3"), "forgotten once ended");
    }

    /** A transaction that ends a runtime but rolls back (a deadlock victim, run again) leaves it live: its secrets too. */
    @Test
    void shouldForgetTheSecretsOfAnEndedRuntimeOnlyOnceItsEndIsCommitted() {
        List<Synchronization> registered = new ArrayList<>();
        journal.compensation.transactions = (TransactionSynchronizationRegistry) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TransactionSynchronizationRegistry.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getTransactionKey" -> "tx-1";
                    case "registerInterposedSynchronization" -> {
                        registered.add((Synchronization) args[0]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        SandboxRuntime runtime = stored();
        secrets.remember(runtime.id(), List.of("oauth-canary-3"));

        journal.transition(runtime.id(), RuntimeStatus.ERROR, "failed");
        assertEquals(1, registered.size());
        registered.get(0).afterCompletion(Status.STATUS_ROLLEDBACK);
        assertEquals("[redacted]", secrets.redact(runtime.id(), "oauth-canary-3"), "still live: still redacted");

        // the in-memory table keeps what a rollback would undo: the committed case on a runtime of its own
        SandboxRuntime other = stored();
        secrets.remember(other.id(), List.of("oauth-canary-4"));
        journal.transition(other.id(), RuntimeStatus.ERROR, "failed");
        registered.get(1).afterCompletion(Status.STATUS_COMMITTED);
        assertEquals("oauth-canary-4", secrets.redact(other.id(), "oauth-canary-4"), "forgotten once committed");
    }
}
