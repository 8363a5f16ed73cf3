package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakePools;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.placement.NodeCapacity;
import dev.dockyard.placement.NodeForbiddenException;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.placement.Placements;
import dev.dockyard.pool.MemberRowLocks;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.pool.WarmSandbox;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.QuotaExceededException;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.RollbackException;
import jakarta.transaction.TransactionalException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A request served from a warm pool: the claim, a lost claim, a dead member, a refused quota. */
class ProvisionerWarmClaimTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final FakeNodes nodes = new FakeNodes("local");
    private final FakeBackend backend = nodes.backend("local");
    private final ProvisioningBeans beans = new ProvisioningBeans();
    private final Provisioner provisioner = beans.provisioner;
    /** The per-node settings placement and the node access rule read (allowed-users). */
    private final TestConfig nodeConfig = new TestConfig();
    /** The control plane's own settings (boot turns, sandbox defaults). */
    private final TestConfig config = new TestConfig();
    private final Deque<WarmSandbox> queue = new ArrayDeque<>();
    /** Member rows still READY in the "database": a claim deletes one only if it is here. */
    private final Set<String> claimable = new HashSet<>();
    private final List<URI> configured = new ArrayList<>();
    private final Set<URI> dead = new HashSet<>();
    /** How many of the next READY records the database rolls back as deadlock victims. */
    private int readyDeadlocks;
    private QuotaExceededException overQuota;
    /** A member whose claim ends in a database error (a lock timeout): its transaction rolls back. */
    private String lockedMember;
    /** The one pool's members: the request's settings, started on the default (embedded) executor server. */
    private static final String SHAPE = PoolDefinition.shape("img", 1, 512, List.of(), "local", null,
            ExecutorServer.EMBEDDED);

    private static ManagedExecutorService inline() {
        return (ManagedExecutorService) Proxy.newProxyInstance(ProvisionerWarmClaimTest.class.getClassLoader(),
                new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                    if (method.getName().equals("execute")) {
                        ((Runnable) args[0]).run();
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @BeforeEach
    void wire() {
        RuntimeSecrets secrets = new RuntimeSecrets();
        ProvisioningJournal journal = Journals.over(new ProvisioningJournal() {
            @Override
            public Optional<SandboxRuntime> readyAndTakeOver(String id, String message) {
                if (readyDeadlocks > 0) {
                    readyDeadlocks--;
                    throw deadlockVictim();
                }
                return super.readyAndTakeOver(id, message);
            }

            @Override
            public Optional<SandboxRuntime> startedAndReady(String id, String startedMessage, String readyMessage) {
                if (readyDeadlocks > 0) {
                    readyDeadlocks--;
                    throw deadlockVictim();
                }
                return super.startedAndReady(id, startedMessage, readyMessage);
            }
        }, runtimes, clock, secrets);
        Accounts accounts = new Accounts() {
            @Override
            public void ensure(String userId, Role role) {
            }

            @Override
            public Allowance allowance(String userId) {
                return new Allowance(100, 100, 100_000, 0, 0, 0) {
                    @Override
                    public void take(double cpus, int memoryMb) {
                        if (overQuota != null) {
                            throw overQuota;
                        }
                    }
                };
            }
        };
        journal.accounts = accounts;
        journal.compensation = new SandboxCompensation() {
            @Override
            public void removeOnRollback(RuntimeBackend backend, String sandboxName) {
            }
        };
        journal.pools = new FakePools() {
            @Override
            public boolean claim(String id, String shape) {
                if (id.equals(lockedMember)) {
                    throw new PersistenceException("A lock could not be obtained within the time requested");
                }
                return shape.equals(SHAPE) && claimable.remove(id);
            }
        };
        beans.journal(journal);
        Admissions admissions = new Admissions();
        admissions.journal = journal;
        admissions.memberRows = new MemberRowLocks();
        beans.admissions(admissions);
        beans.accounts(accounts);
        beans.pools(new WarmPools() {
            @Override
            public Optional<String> match(String image, double cpus, int memoryMb, List<String> plugins, String node,
                                          PoolProgram program, ExecutorServer executorServer) {
                // as WarmPools matches: by the whole shape
                return PoolDefinition.shape(image, cpus, memoryMb, plugins, node, program, executorServer).equals(SHAPE)
                        ? Optional.of("p") : Optional.empty();
            }

            @Override
            public Optional<WarmSandbox> next(String pool) {
                return Optional.ofNullable(queue.pollFirst());
            }

            @Override
            public void claimed(WarmSandbox sandbox) {
            }

            @Override
            public void putBack(WarmSandbox sandbox) {
                queue.addFirst(sandbox);
            }
        });
        beans.keeper(NoPools.keeper());
        beans.nodes(nodes);
        beans.placement(Placements.over(nodes, runtimes, Map::of, clock, Map.of(), nodeConfig));
        beans.access(Placements.access(nodes, nodeConfig));
        beans.clock(clock);
        beans.instance(ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        beans.config(config);
        beans.turns(Placements.turns(config));
        beans.gates(new RuntimeGates());
        beans.secrets(secrets);
        beans.executor(inline());
        beans.credentials(new Credentials() {
            @Override
            public Map<String, String> resolveAll(String userId) {
                return Map.of();
            }
        });
        beans.configurations(new SandboxConfigurations() {
            @Override
            public SandboxConfiguration of(SandboxRuntime runtime, Map<String, String> credentials) {
                return new SandboxConfiguration(Map.of("CANARY", runtime.conversationId()), null, null, null);
            }
        });
        beans.images(new RuntimeImages() {
            @Override
            public Resolution resolve(String node, String image, ExtraDependencies extra, Consumer<ImageBuild> onBuild) {
                return new Resolution(image, null);
            }
        });
        beans.readiness(new ReadinessProbe() {
            @Override
            public void probe(ReadinessAttempt attempt) {
            }
        });
        beans.executors(new ExecutorClient() {
            @Override
            public void configure(URI executor, String sessionKey, SandboxConfiguration configuration) {
                if (dead.contains(executor)) {
                    throw new ExecutorUnreachableException("connection refused", null);
                }
                configured.add(executor);
            }
        });
    }

    /** What a REQUIRES_NEW method throws when Derby picked its transaction as a deadlock victim. */
    private static TransactionalException deadlockVictim() {
        SQLException deadlock = new SQLException("A lock could not be obtained due to a deadlock", "40001", 30000);
        return new TransactionalException("rolled back", new RollbackException(new PersistenceException(
                "Internal Exception: " + deadlock, deadlock)));
    }

    private WarmSandbox warm(String id) {
        backend.put("dockyard-" + id, id, Instant.EPOCH, Phase.RUNNING);
        WarmSandbox sandbox = new WarmSandbox(id, "p", SHAPE, "key-of-" + id, "cid-" + id, "http://127.0.0.1:1" + id.length()
                + "/" + id, "img:rt", Instant.EPOCH);
        queue.addLast(sandbox);
        claimable.add(id);
        return sandbox;
    }

    private static ProvisioningRequest request(String conversation) {
        return new ProvisioningRequest("alice", Role.USER, conversation,
                new AgentProfile("CodeActAgent", new LlmSettings(null, null, null), null, null, List.of()),
                new LlmSettings(null, null, null), "img", 1, 512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null,
                false, null);
    }

    private SandboxRuntime provision(String conversation) {
        return provisioner.provision(request(conversation));
    }

    @Test
    void shouldAnswerReadyInTheClaimedSandboxWithoutCreatingOne() {
        WarmSandbox member = warm("rt-warm1");

        SandboxRuntime runtime = provision("conv-1");

        assertEquals("rt-warm1", runtime.id());
        assertEquals(RuntimeStatus.READY, runtime.status());
        assertEquals("key-of-rt-warm1", runtime.sessionKey(), "its executor holds the member's key");
        assertEquals(Optional.of("p"), runtime.pool());
        assertEquals(List.of(URI.create(member.executorUrl())), configured, "configured once, in its own sandbox");
        assertTrue(backend.calls().stream().noneMatch(c -> c.startsWith("create")), backend.calls().toString());
        List<RuntimeStatus> history = runtimes.history(runtime.id()).stream().map(c -> c.status()).toList();
        assertEquals(List.of(RuntimeStatus.STARTING_RUNTIME, RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY),
                history);
        assertTrue(runtime.statusMessage().contains("from pool 'p'"), runtime.statusMessage());
        // where the claim's time went, as a cold provision's READY message says it
        String started = runtimes.history(runtime.id()).get(1).message();
        assertTrue(started.matches(".*configuration injected in \\d+ ms \\(register \\d+, credentials \\d+, "
                + "check \\d+, inject \\d+\\)"), started);
        assertFalse(provisioner.isInFlight(runtime.id()));
    }

    @Test
    void shouldNeverServeARequestForLibertyFromAPoolOfEmbeddedMembersNorTheOtherWayRound() {
        warm("rt-embedded");

        SandboxRuntime liberty = provisioner.provision(request("conv-l").withExecutorServer(ExecutorServer.LIBERTY));

        assertNotEquals("rt-embedded", liberty.id());
        SandboxRuntime cold = runtimes.find(liberty.id()).orElseThrow();
        assertEquals(RuntimeStatus.READY, cold.status(), cold.statusMessage());
        assertEquals(Optional.empty(), cold.pool());
        assertEquals(Optional.of(ExecutorServer.LIBERTY), cold.executorServer());
        assertEquals(List.of(ExecutorServer.LIBERTY), backend.createdSpecs().stream().map(s -> s.executorServer())
                .toList(), "booted cold on the server it asked for");
        assertTrue(claimable.contains("rt-embedded"), "the member waits for a request of its own server");

        SandboxRuntime embedded = provisioner.provision(request("conv-e").withExecutorServer(ExecutorServer.EMBEDDED));

        assertEquals("rt-embedded", embedded.id());
        assertEquals(Optional.of(ExecutorServer.EMBEDDED), embedded.executorServer());
    }

    @Test
    void shouldMatchARequestThatNamesNoServerOnItsNodesSetting() {
        nodes.executorServer("local", ExecutorServer.LIBERTY);
        warm("rt-embedded");

        SandboxRuntime runtime = provision("conv-n");

        assertNotEquals("rt-embedded", runtime.id(), "the node's runtimes start on Liberty: not this member");
        assertEquals(Optional.of(ExecutorServer.LIBERTY), runtimes.find(runtime.id()).orElseThrow().executorServer());
        assertEquals(ExecutorServer.LIBERTY, backend.createdSpecs().get(0).executorServer());
        assertTrue(claimable.contains("rt-embedded"));
    }

    @Test
    void shouldTryTheNextMemberWhenAnotherClaimWonTheFirst() {
        warm("rt-taken");
        claimable.remove("rt-taken");
        warm("rt-free");

        SandboxRuntime runtime = provision("conv-2");

        assertEquals("rt-free", runtime.id());
        assertEquals(RuntimeStatus.READY, runtime.status());
        assertTrue(runtimes.find("rt-taken").isEmpty(), "no runtime for a member claimed by another");
    }

    @Test
    void shouldProvisionTheSameRuntimeColdWhenItsWarmSandboxIsDead() {
        WarmSandbox member = warm("rt-dead");
        dead.add(URI.create(member.executorUrl()));

        SandboxRuntime runtime = provision("conv-3");

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals("rt-dead", now.id());
        assertEquals(RuntimeStatus.READY, now.status(), now.statusMessage());
        assertEquals(Optional.empty(), now.pool(), "its sandbox is its own now");
        List<String> calls = backend.calls();
        assertTrue(calls.indexOf("remove dockyard-rt-dead") < calls.indexOf("create dockyard-rt-dead"), calls.toString());
    }

    @Test
    void shouldProvisionColdARequestOfAnotherNetworkModeThanThePools() {
        warm("rt-open");
        EgressPolicy allowlist = new EgressPolicy(EgressPolicy.Mode.ALLOWLIST,
                List.of(new EgressPolicy.Destination("10.1.2.3", 5432)));

        SandboxRuntime runtime = provisioner.provision(new ProvisioningRequest("alice", Role.USER, "conv-egress",
                new AgentProfile("CodeActAgent", new LlmSettings(null, null, null), null, null, List.of()),
                new LlmSettings(null, null, null), "img", 1, 512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null,
                false, null).withEgress(allowlist));

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertFalse(now.id().equals("rt-open"), "the open pool's member is not claimed");
        assertTrue(claimable.contains("rt-open"));
        assertEquals(RuntimeStatus.READY, now.status(), now.statusMessage());
        assertEquals(allowlist, now.egress(), "stored with the runtime");
        assertEquals(allowlist, backend.createdSpecs().get(backend.createdSpecs().size() - 1).egress(), "handed to the backend");
    }

    @Test
    void shouldLeaveTheMemberWhenItsNodeHasNoFreeRuntimeSlot() {
        beans.placement(Placements.over(nodes, runtimes, Map::of, clock,
                Map.of("local", new NodeCapacity(1, null)), nodeConfig));
        warm("rt-first");
        assertEquals("rt-first", provision("conv-full-1").id());
        warm("rt-second");

        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class,
                () -> provision("conv-full-2"));

        assertEquals(PlacementRefusedException.Reason.NO_CAPACITY, refused.reason());
        assertTrue(claimable.contains("rt-second"), "the member waits for a node with room");
        assertTrue(runtimes.find("rt-second").isEmpty());
    }

    @Test
    void shouldProvisionColdWhenThePoolIsEmpty() {
        SandboxRuntime runtime = provision("conv-4");

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.READY, now.status());
        assertTrue(backend.calls().contains("create " + now.containerName()));
        assertEquals(Optional.empty(), now.pool());
    }

    @Test
    void shouldRecordReadyAgainWhenItsTransactionWasADeadlockVictim() {
        readyDeadlocks = 2;

        SandboxRuntime cold = provision("conv-dl1");
        warm("rt-warm-dl");
        readyDeadlocks = 1;
        SandboxRuntime claimed = provision("conv-dl2");

        assertEquals(RuntimeStatus.READY, runtimes.find(cold.id()).orElseThrow().status(),
                "a sandbox that booted is not lost to a rolled-back record of it");
        assertEquals(RuntimeStatus.READY, claimed.status());
        assertEquals("rt-warm-dl", claimed.id());
        assertEquals(0, readyDeadlocks);
    }

    @Test
    void shouldLabelAFailureToRecordReadyAsTheRecordStep() {
        readyDeadlocks = LockConflicts.ATTEMPTS;

        SandboxRuntime runtime = provision("conv-dl3");

        SandboxRuntime now = runtimes.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.ERROR, now.status());
        assertTrue(now.statusMessage().startsWith("Provisioning failed at step 'record'"), now.statusMessage());
        assertTrue(backend.calls().contains("remove " + now.containerName()), backend.calls().toString());
    }

    @Test
    void shouldBootColdRequestsInTurnsAndCountTheReadinessLimitFromTheTurn() throws Exception {
        config.maxConcurrentBoots = 1;
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            beans.executor((ManagedExecutorService) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {ManagedExecutorService.class}, (proxy, method, args) -> {
                        if (method.getName().equals("execute")) {
                            threads.execute((Runnable) args[0]);
                            return null;
                        }
                        throw new UnsupportedOperationException(method.getName());
                    }));
            CountDownLatch firstBooting = new CountDownLatch(1);
            CountDownLatch letFirstBoot = new CountDownLatch(1);
            List<Boolean> expiredWhenProbed = new CopyOnWriteArrayList<>();
            beans.readiness(new ReadinessProbe() {
                @Override
                public void probe(ReadinessAttempt attempt) {
                    expiredWhenProbed.add(attempt.expired());
                    if (expiredWhenProbed.size() == 1) {
                        firstBooting.countDown();
                        try {
                            assertTrue(letFirstBoot.await(10, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            });

            SandboxRuntime first = provision("conv-turn-1");
            assertTrue(firstBooting.await(10, TimeUnit.SECONDS));
            SandboxRuntime second = provision("conv-turn-2");
            String waiting = awaitMessage(second.id(), "Waiting for a turn");
            assertEquals("Waiting for a turn to boot on node 'local': 1 sandbox is booting there, "
                    + "0 waiting ahead of this one", waiting);
            assertFalse(backend.calls().contains("create " + second.containerName()), "nothing created while it waits");

            // an hour in line, far beyond its 60 s limit: the limit counts from its turn
            clock.advance(Duration.ofHours(1));
            letFirstBoot.countDown();
            assertTrue(awaitMessage(first.id(), "Ready").startsWith("Ready in"));
            String ready = awaitMessage(second.id(), "Ready");
            assertEquals(RuntimeStatus.READY, runtimes.find(second.id()).orElseThrow().status(), ready);
            assertTrue(ready.contains("turn "), ready);
            assertEquals(List.of(false, false), expiredWhenProbed);
        } finally {
            threads.shutdownNow();
        }
    }

    /** The runtime's status message once it starts with {@code prefix} (bounded: 10 s). */
    private String awaitMessage(String id, String prefix) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            String message = runtimes.find(id).map(SandboxRuntime::statusMessage).orElse("");
            if (message.startsWith(prefix)) {
                return message;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(id + " never said '" + prefix + "': "
                + runtimes.find(id).map(SandboxRuntime::statusMessage).orElse("(gone)"));
    }

    @Test
    void shouldLeaveTheMemberClaimableWhenTheQuotaRefuses() {
        warm("rt-keep");
        overQuota = new QuotaExceededException("maxRuntimes", 1, 1, 1);

        assertThrows(QuotaExceededException.class, () -> provision("conv-5"));

        assertTrue(claimable.contains("rt-keep"), "the member's row was not deleted");
        assertEquals("rt-keep", queue.peekFirst().id(), "and it is first in line again");
        assertTrue(runtimes.find("rt-keep").isEmpty());
        assertFalse(provisioner.isInFlight("rt-keep"));
    }

    @Test
    void shouldOfferTheMemberToTheNextRequestWhenItsClaimRolledBack() {
        warm("rt-locked");
        warm("rt-next");
        lockedMember = "rt-locked";

        SandboxRuntime first = provision("conv-6");

        assertEquals("rt-next", first.id(), "the request goes on with the next member");
        assertTrue(claimable.contains("rt-locked"), "the rolled-back claim deleted no row");
        assertEquals("rt-locked", queue.peekFirst() == null ? null : queue.peekFirst().id(),
                "a READY member nobody holds is first in line again, not handed out for ever");
        lockedMember = null;
        SandboxRuntime second = provision("conv-7");
        assertEquals("rt-locked", second.id());
        assertEquals(RuntimeStatus.READY, second.status());
    }

    @Test
    void shouldClaimNoMemberOfANodeTheUserMayNotUse() {
        backend.type = "local";
        warm("rt-host");

        NodeForbiddenException refused = assertThrows(NodeForbiddenException.class, () -> provision("conv-host"));

        assertEquals(null, refused.node(), "no node is open to alice: none was named");
        assertTrue(claimable.contains("rt-host"), "the member waits for a user its node is open to");
        assertTrue(runtimes.live().isEmpty(), "nothing recorded");
        assertTrue(backend.calls().stream().noneMatch(c -> c.startsWith("create")), backend.calls().toString());

        NodeForbiddenException named = assertThrows(NodeForbiddenException.class, () -> provisioner.provision(
                new ProvisioningRequest("alice", Role.USER, "conv-named",
                        new AgentProfile("CodeActAgent", new LlmSettings(null, null, null), null, null, List.of()),
                        new LlmSettings(null, null, null), "img", 1, 512, 60, Map.of(), ExtraDependencies.NONE,
                        List.of(), null, false, null).withWorkspace(new WorkspaceRequest(0, null, null, "local", null),
                        null)));
        assertEquals("local", named.node());
        assertTrue(claimable.contains("rt-host"));

        nodeConfig.nodeAllowedUsers.put("local", Set.of("alice"));
        assertEquals("rt-host", provision("conv-granted").id(), "granted: the pool serves her");
    }
}
