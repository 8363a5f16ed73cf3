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
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
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
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ProvisionerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final ProvisioningBeans beans = new ProvisioningBeans();
    private final Provisioner provisioner = beans.provisioner;

    /** A managed executor that takes no work, as one that is shutting down or saturated. */
    private static ManagedExecutorService refusingExecutor() {
        return (ManagedExecutorService) Proxy.newProxyInstance(ProvisionerTest.class.getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    throw new RejectedExecutionException("no thread");
                });
    }

    /** The provisioner over the in-memory runtime table, one unbounded node and no pools; no thread takes its work. */
    private void wire() {
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
        beans.journal(journal);
        Admissions admissions = new Admissions();
        admissions.journal = journal;
        admissions.memberRows = new MemberRowLocks();
        beans.admissions(admissions);
        beans.accounts(accounts);
        beans.pools(NoPools.warmPools());
        FakeNodes nodes = new FakeNodes("local");
        beans.nodes(nodes);
        beans.placement(Placements.unbounded(nodes, runtimes, clock));
        beans.access(Placements.access(nodes, new TestConfig()));
        beans.clock(clock);
        beans.instance(ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        TestConfig config = new TestConfig();
        beans.config(config);
        beans.turns(Placements.turns(config));
        beans.gates(new RuntimeGates());
        beans.secrets(secrets);
        beans.executor(refusingExecutor());
    }

    private static ProvisioningRequest request() {
        return new ProvisioningRequest("alice", Role.USER, "conv-1",
                new AgentProfile("CodeActAgent", new LlmSettings(null, null, null), null, null, List.of()),
                new LlmSettings(null, null, null), "img", 1, 512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null,
                false, null);
    }

    @Test
    void shouldFailAtOnceWhenNoThreadTakesTheProvisioning() {
        wire();

        SandboxRuntime answered = provisioner.provision(request());

        assertEquals(RuntimeStatus.ERROR, answered.status());
        assertTrue(answered.statusMessage().contains("no thread for it now"), answered.statusMessage());
        assertFalse(provisioner.isInFlight(answered.id()), "nothing is left in flight for ever");
        assertTrue(runtimes.findLive("alice", "conv-1").isEmpty(), "the conversation and the quota are free");
    }

    @Test
    void shouldRecordTheEndTimeAndTheMetadataARequestAsksFor() {
        wire();

        SandboxRuntime asked = provisioner.provision(request()
                .with(new ProvisioningRequest.Lifecycle(false, 0, 3600, 300, EndAction.PAUSE))
                .describedAs(new RuntimeMetadata("base", Map.of("k", "v"))));
        SandboxRuntime plain = provisioner.provision(request());

        SandboxRuntime recorded = runtimes.find(asked.id()).orElseThrow();
        assertEquals(Optional.of(recorded.createdAt().plusSeconds(300)), recorded.endsAt(), "300 s from its creation");
        assertEquals(EndAction.PAUSE, recorded.atEnd());
        assertEquals(3600, recorded.ttlSeconds(), "the TTL still caps it");
        assertEquals(new RuntimeMetadata("base", Map.of("k", "v")), recorded.metadata());
        SandboxRuntime other = runtimes.find(plain.id()).orElseThrow();
        assertEquals(Optional.empty(), other.endsAt(), "no end time unless asked");
        assertEquals(RuntimeMetadata.NONE, other.metadata());
    }
}
