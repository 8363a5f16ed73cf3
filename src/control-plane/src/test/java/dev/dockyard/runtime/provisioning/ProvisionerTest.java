package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.placement.Placements;
import dev.dockyard.pool.MemberRowLocks;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ProvisionerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final Provisioner provisioner = new Provisioner();

    /** A managed executor that takes no work, as one that is shutting down or saturated. */
    private static ManagedExecutorService refusingExecutor() {
        return (ManagedExecutorService) Proxy.newProxyInstance(ProvisionerTest.class.getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    throw new RejectedExecutionException("no thread");
                });
    }

    @Test
    void shouldFailAtOnceWhenNoThreadTakesTheProvisioning() {
        RuntimeSecrets secrets = new RuntimeSecrets();
        ProvisioningJournal journal = Journals.over(runtimes, clock, secrets);
        Accounts accounts = new Accounts() {
            @Override
            public void ensure(String userId, Role role) {
            }

            @Override
            public Allowance allowance(String userId) {
                return new Allowance(100, 100, 100_000, 0, 0, 0);
            }
        };
        journal.accounts = accounts;
        provisioner.journal = journal;
        provisioner.admissions = new Admissions();
        provisioner.admissions.journal = journal;
        provisioner.admissions.memberRows = new MemberRowLocks();
        provisioner.accounts = accounts;
        provisioner.pools = NoPools.warmPools();
        provisioner.nodes = new FakeNodes("local");
        provisioner.placement = Placements.unbounded(provisioner.nodes, runtimes, clock);
        provisioner.access = Placements.access(provisioner.nodes, new TestConfig());
        provisioner.clock = clock;
        provisioner.instance = ControlPlaneInstance.of("test", Duration.ofSeconds(30));
        provisioner.config = new TestConfig();
        provisioner.turns = Placements.turns((TestConfig) provisioner.config);
        provisioner.gates = new RuntimeGates();
        provisioner.secrets = secrets;
        provisioner.executor = refusingExecutor();

        SandboxRuntime answered = provisioner.provision(new ProvisioningRequest("alice", Role.USER, "conv-1",
                new AgentProfile("CodeActAgent", new LlmSettings(null, null, null), null, null, List.of()),
                new LlmSettings(null, null, null), "img", 1, 512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null,
                false, null));

        assertEquals(RuntimeStatus.ERROR, answered.status());
        assertTrue(answered.statusMessage().contains("no thread for it now"), answered.statusMessage());
        assertFalse(provisioner.isInFlight(answered.id()), "nothing is left in flight for ever");
        assertTrue(runtimes.findLive("alice", "conv-1").isEmpty(), "the conversation and the quota are free");
    }
}
