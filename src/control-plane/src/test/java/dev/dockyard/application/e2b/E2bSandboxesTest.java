package dev.dockyard.application.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.Refused;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.backend.SandboxUsage;
import dev.dockyard.fakes.FakeImages;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.placement.Placements;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.PoolSettings;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.lifecycle.Lifecycles;
import dev.dockyard.runtime.provisioning.ProvisioningCleanup;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.tenancy.QuotaExceededException;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * E2B's sandboxes over the real lifecycle (journal, pauses, idle sweep) on the in-memory runtime
 * table, a fake backend and a clock the test moves. Provisioning is the use case's collaborator:
 * here it records the request and registers the runtime READY at once, its end time and metadata
 * as registration records them (ProvisionerTest holds registration to that).
 */
class E2bSandboxesTest {

    private final Lifecycles l = new Lifecycles();
    private final E2bSandboxes sandboxes = new E2bSandboxes();
    private final List<ProvisioningRequest> asked = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final FakeImages engine = new FakeImages();
    private final Map<String, PoolDefinition> pools = new HashMap<>();
    private final Map<String, Snapshot> snapshots = new HashMap<>();
    private static final AgentProfile AGENT = new AgentProfile("CodeActAgent", LlmSettings.NONE, null, null, List.of());
    /** What the next fork's snapshot refuses with, if set. */
    private Refused refuseFork;
    /** What the next provision answers instead of a READY runtime, if set. */
    private RuntimeException refuseNext;
    private boolean neverReady;
    /** Whether the next provision ends in ERROR, its node's engine having stopped answering meanwhile. */
    private boolean engineGone;
    private boolean engineRestarted;
    private boolean engineCutMidCall;
    private boolean failedBefore;
    private boolean bootFails;
    private boolean databaseGone;

    @BeforeEach
    void wire() {
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:c2" + "0".repeat(62), Set.of("dockyard/sandbox:latest"),
                1, Map.of(Labels.RUNTIME_IMAGE, "true")));
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:d3" + "0".repeat(62), Set.of("team/python:3"),
                1, Map.of(Labels.RUNTIME_IMAGE, "true")));
        FakeNodes imageNodes = new FakeNodes("local") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return engine;
            }
        };
        Templates templates = new Templates();
        templates.config = l.config;
        TestConfig allowing = new TestConfig() {
            @Override
            public List<String> imagesAllowed() {
                // an image that is neither Dockyard's nor a user's own is usable once an admin allows it
                return List.of("team/python:*");
            }
        };
        templates.images = new ImageAccess(imageNodes, allowing, new WorkspaceRecords());
        templates.pools = new WarmPools() {
            @Override
            public Optional<PoolDefinition> definition(String name) {
                return Optional.ofNullable(pools.get(name));
            }
        };
        templates.snapshots = new Snapshots() {
            @Override
            public Snapshot visible(String id, String userId, boolean admin) {
                return Optional.ofNullable(snapshots.get(id)).filter(s -> admin || s.userId().equals(userId))
                        .orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND, "No snapshot " + id));
            }
        };
        sandboxes.templates = templates;
        sandboxes.snapshots = new Snapshots() {
            @Override
            public ProvisioningRequest forkRequest(SandboxRuntime source, String conversationId, String userId,
                                                   Role role) {
                if (refuseFork != null) {
                    throw refuseFork;
                }
                // as Snapshots makes it: the source's settings on a snapshot of it, the configured lifecycle
                return new ProvisioningRequest(userId, role, conversationId, AGENT, LlmSettings.NONE,
                        "dockyard/snapshot:snap-f", source.cpus(), source.memoryMb(), 60, source.environment(),
                        ExtraDependencies.NONE, List.of(), null, false, null, null, Map.of(), null,
                        WorkspaceRequest.of(0, null, "snap-f"));
            }
        };
        sandboxes.journal = l.journal;
        sandboxes.health = Placements.health(l.nodes, l.clock);
        sandboxes.idle = l.idle;
        sandboxes.nodes = l.nodes;
        sandboxes.clock = l.clock;
        sandboxes.config = l.config;
        sandboxes.agents = new AgentCatalog() {
            @Override
            public Optional<AgentProfile> find(String name) {
                return Optional.of(AGENT);
            }

            @Override
            public String defaultAgent() {
                return "CodeActAgent";
            }
        };
        sandboxes.lifecycle = new RuntimeService() {
            @Override
            public SandboxRuntime provision(ProvisioningRequest request) {
                asked.add(request);
                if (refuseNext != null) {
                    throw refuseNext;
                }
                if (databaseGone) {
                    // as provisioning leaves it when the database stopped answering on the way
                    SandboxRuntime failed = starting(request);
                    return l.journal.transition(failed.id(), RuntimeStatus.ERROR, ProvisioningCleanup.failedAt(
                            ProvisioningStep.TURN, new RuntimeException(new SQLTransientConnectionException(
                                    "Connection refused", "08001"))));
                }
                if (engineGone) {
                    // as provisioning leaves it: ERROR with the engine's words, and its node marked down
                    SandboxRuntime failed = starting(request);
                    l.backend.pingFails(new EngineUnreachableException("the Docker engine of node 'local' does not "
                            + "answer (SocketException)", null));
                    sandboxes.health.probe("local");
                    return l.journal.transition(failed.id(), RuntimeStatus.ERROR, "Provisioning failed at step "
                            + "'create': the Docker engine of node 'local' does not answer (SocketException)");
                }
                if (engineCutMidCall) {
                    // as cold provisioning leaves it: the call's failure recorded as the node's
                    // (Placement.unreachable), whose probe still answers
                    SandboxRuntime failed = starting(request);
                    sandboxes.health.sawUnreachable("local");
                    return l.journal.transition(failed.id(), RuntimeStatus.ERROR, "Provisioning failed at step "
                            + "'image': the Docker engine of node 'local' does not answer (NoHttpResponseException)");
                }
                if (failedBefore) {
                    // the node failed a probe before this provision, and its boot failed on its own
                    l.backend.pingFails(new EngineUnreachableException("the Docker engine of node 'local' "
                            + "does not answer (SocketException)", null));
                    sandboxes.health.probe("local");
                    l.backend.pingFails(null);
                    l.clock.advance(Duration.ofSeconds(30));
                    sandboxes.health.probe("local");
                    SandboxRuntime failed = starting(request);
                    return l.journal.transition(failed.id(), RuntimeStatus.ERROR, "Provisioning failed at step "
                            + "'readiness': the sandbox stopped before it was ready (container exited with code 1)");
                }
                if (engineRestarted || bootFails) {
                    // as provisioning leaves a boot stopped below it; with the engine restarted, a
                    // probe failed on the way and the next one answers again
                    SandboxRuntime failed = starting(request);
                    if (engineRestarted) {
                        l.backend.pingFails(new EngineUnreachableException("the Docker engine of node 'local' "
                                + "does not answer (SocketException)", null));
                        sandboxes.health.probe("local");
                        l.backend.pingFails(null);
                    }
                    return l.journal.transition(failed.id(), RuntimeStatus.ERROR, "Provisioning failed at step "
                            + "'readiness': the sandbox stopped before it was ready (container exited with code "
                            + (engineRestarted ? 143 : 1) + ")");
                }
                return neverReady ? starting(request) : registered(request);
            }

            @Override
            public CompletionStage<SandboxRuntime> settled(SandboxRuntime runtime, Duration wait) {
                return CompletableFuture.completedFuture(l.find(runtime.id()));
            }

            @Override
            public void delete(String id, boolean keepWorkspace) {
                deleted.add(id);
                SandboxRuntime stopped = l.journal.stop(id, "Stopped on request");
                l.backend.remove(stopped.containerName());
            }

            @Override
            public SandboxRuntime pause(String id) {
                return l.pauses.pause(id);
            }

            @Override
            public SandboxRuntime resume(String id) {
                return l.pauses.resume(id);
            }
        };
    }

    /** The runtime as registration records a request of E2B's: READY, its end and metadata. */
    private SandboxRuntime registered(ProvisioningRequest request) {
        SandboxRuntime runtime = l.ready(request.userId(), false, 0, request.lifecycle().ttlSeconds());
        ProvisioningRequest.Lifecycle lifecycle = request.lifecycle();
        return l.journal.update(runtime.id(), r -> {
            r.endsAt(r.createdAt().plusSeconds(lifecycle.endAfterSeconds()), lifecycle.atEnd());
            r.describedAs(request.metadata());
        });
    }

    private SandboxRuntime starting(ProvisioningRequest request) {
        SandboxRuntime runtime = new SandboxRuntime("e2b-starting", request.userId(), "fake", request.image(), 1, 512,
                60, l.clock.instant());
        runtime.assignNode("local");
        runtime.describedAs(request.metadata());
        l.runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", l.clock.instant()));
        return runtime;
    }

    private static NewSandbox base(int timeout, Map<String, String> metadata) {
        return new NewSandbox("base", timeout, metadata, Map.of(), null, false);
    }

    private SandboxRuntime create(String user, NewSandbox sandbox) {
        return sandboxes.create(user, Role.USER, sandbox);
    }

    private void after(int seconds) {
        l.clock.advance(Duration.ofSeconds(seconds));
    }

    @Test
    void shouldCreateFromTheBaseTemplateASandboxThatEndsAfterItsTimeout() {
        SandboxRuntime created = create("alice", new NewSandbox("base", 300, Map.of("k", "v"),
                Map.of("TOKEN", "s3cret"), null, false));

        ProvisioningRequest request = asked.get(0);
        assertEquals("dockyard/sandbox:latest", request.image(), "base is Dockyard's default sandbox image");
        assertEquals(new ProvisioningRequest.Lifecycle(false, 0, 0, 300, EndAction.STOP), request.lifecycle());
        assertEquals(Map.of("TOKEN", "s3cret"), request.environment(), "injected once ready, as sandbox.env");
        assertEquals(new RuntimeMetadata("base", Map.of("k", "v")), request.metadata());
        assertEquals(EgressPolicy.OPEN, request.egress());
        assertTrue(request.conversationId().startsWith("e2b-"), "a conversation of its own");
        assertEquals(RuntimeStatus.READY, created.status());
        assertEquals(Optional.of(l.clock.instant().plusSeconds(300)), created.endsAt());
    }

    @Test
    void shouldTakeAnImageTemplateAndDenyInternetAndPauseAtTheEndWhenAsked() {
        create("alice", new NewSandbox("team/python:3", 60, Map.of(), Map.of(),
                new EgressPolicy(EgressPolicy.Mode.NONE, List.of()), true));

        ProvisioningRequest request = asked.get(0);
        assertEquals("team/python:3", request.image());
        assertEquals(EgressPolicy.Mode.NONE, request.egress().mode());
        assertEquals(EndAction.PAUSE, request.lifecycle().atEnd());
    }

    @Test
    void shouldProvisionAPoolsTemplateWithThePoolsSettingsSoThatItsMembersAreClaimed() {
        pools.put("py", new PoolDefinition(new PoolSettings("py", "team/python:3", 2, 2048, List.of("jupyter"),
                "node2", 2, 1, null, ExecutorServer.LIBERTY), "api", Instant.EPOCH));

        create("alice", new NewSandbox("py", 300, Map.of(), Map.of(), null, false));

        ProvisioningRequest request = asked.get(0);
        assertEquals("team/python:3", request.image());
        assertEquals(2, request.cpus());
        assertEquals(2048, request.memoryMb());
        assertEquals(List.of("jupyter"), request.plugins());
        assertEquals("node2", request.workspace().node());
        assertTrue(request.workspace().isFreshDefault(), "a fresh default workspace, as members have");
        assertEquals(ExecutorServer.LIBERTY, request.executorServer());
        assertEquals("py", request.metadata().template());
    }

    @Test
    void shouldRefuseATemplateThatIsNeitherAPoolNorAnImageOfTheCaller() {
        pools.put("program", new PoolDefinition(new PoolSettings("program", "team/python:3", 1, 512, List.of(),
                "local", 1, 1, new PoolProgram(List.of("serve"), null, null, Map.of()), null), "api", Instant.EPOCH));
        for (String template : List.of("no-such-template", "program")) {
            Refused refused = assertThrows(Refused.class, () -> create("alice", new NewSandbox(template, 300,
                    Map.of(), Map.of(), null, false)));
            assertEquals(Refused.Reason.VALIDATION, refused.reason(), template);
            assertTrue(refused.getMessage().startsWith("template '" + template + "'"), refused.getMessage());
        }
        assertTrue(asked.isEmpty(), "nothing provisioned");
    }

    @Test
    void shouldAnswerASpentQuotaAsTheQuotaRefusal() {
        refuseNext = new QuotaExceededException("maxRuntimes", 1, 1, 1);
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));
        assertEquals(Refused.Reason.QUOTA_EXCEEDED, refused.reason());
    }

    @Test
    void shouldRemoveASandboxThatIsNotReadyInTimeAndSaySo() {
        neverReady = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason(), "a node busy booting: E2B's 503");
        assertEquals(5, refused.retryAfterSeconds(), "with Retry-After: nothing is broken (the soak, 2026-11-30)");
        assertTrue(refused.getMessage().startsWith("The sandbox was not ready within 50 s"), refused.getMessage());
        assertEquals(1, deleted.size(), "nothing the caller never heard of runs on");
    }

    /**
     * A create whose provisioning met its node's engine gone (the soak's engine restart and node cut,
     * 2026-11-30: 13 creates answered 503 without Retry-After): nothing is wrong with the request, a
     * create a moment later is placed elsewhere or finds the engine back.
     */
    @Test
    void shouldAskToRetryACreateWhoseNodesEngineStoppedAnswering() {
        engineGone = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason());
        assertEquals(5, refused.retryAfterSeconds());
        assertTrue(refused.getMessage().contains("does not answer"), refused.getMessage());
    }

    /**
     * The soak of 2026-12-01 04:55: the engine's restart stopped a boot ("container exited with code
     * 143"), and the engine answered again by the time the create answered: a 503 without
     * Retry-After. A probe that failed during the provision says its node was away: retried.
     */
    @Test
    void shouldAskToRetryACreateWhoseNodesEngineWasAwayDuringItsProvisionThoughItAnswersNow() {
        engineRestarted = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason());
        assertEquals(5, refused.retryAfterSeconds(), refused.getMessage());
        assertTrue(refused.getMessage().contains("exited with code 143"), refused.getMessage());
    }

    /**
     * The same soak: a provision's engine call found node2 being cut off, and the node's probe still
     * answered (the cut's first moment): the failure's own words say the engine did not answer.
     */
    @Test
    void shouldAskToRetryACreateWhoseProvisionFoundTheEngineSilentThoughItsProbeAnswers() {
        engineCutMidCall = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason());
        assertEquals(5, refused.retryAfterSeconds(), refused.getMessage());
        assertTrue(refused.getMessage().contains("does not answer"), refused.getMessage());
    }

    /**
     * A boot that failed on its own, on a node that never was away or was away only before the
     * provision began, is the backend's failure: no retry asked.
     */
    @Test
    void shouldNotAskToRetryACreateWhoseBootFailedOnANodeThatStayed() {
        bootFails = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(Refused.Reason.BACKEND_FAILED, refused.reason());
        assertEquals(0, refused.retryAfterSeconds(), refused.getMessage());

        bootFails = false;
        failedBefore = true;
        Refused after = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));
        assertEquals(Refused.Reason.BACKEND_FAILED, after.reason(), after.getMessage());
    }

    /**
     * The soak's PostgreSQL stop (2026-12-01): a create whose provision failed because the database
     * did not answer was a 503 without Retry-After, which E2B's SDK takes for a failure for good.
     */
    @Test
    void shouldAskToRetryACreateWhoseProvisionFailedForTheDatabase() {
        databaseGone = true;
        Refused refused = assertThrows(Refused.class, () -> create("alice", base(300, Map.of())));

        assertEquals(5, refused.retryAfterSeconds(), refused.getMessage());
        assertTrue(refused.getMessage().contains("database did not answer"), refused.getMessage());
    }

    @Test
    void shouldHideAnotherUsersSandboxAndRuntimesOfDockyardsOwnApi() {
        SandboxRuntime alices = create("alice", base(300, Map.of()));
        String id = SandboxIds.sandboxId(alices.id());
        SandboxRuntime own = l.ready("alice", false, 0, 0);

        assertTrue(sandboxes.find("alice", false, id).isPresent());
        assertTrue(sandboxes.find("bob", false, id).isEmpty(), "another user's: as unknown as a missing one");
        assertTrue(sandboxes.find("root", true, id).isPresent(), "an admin sees everyone's, as on /api/v1");
        assertTrue(sandboxes.find("alice", false, SandboxIds.sandboxId(own.id())).isEmpty(),
                "a runtime of Dockyard's API has no template: not E2B's");
        assertTrue(sandboxes.find("alice", false, "rt-" + id.substring(2)).isEmpty(), "not a sandbox id");
        assertTrue(sandboxes.list("bob", false, query(Map.of(), Set.of(), 100, null)).items().isEmpty());
        assertEquals(1, sandboxes.list("root", true, query(Map.of(), Set.of(), 100, null)).items().size());

        sandboxes.kill(alices);
        assertTrue(sandboxes.find("alice", false, id).isEmpty(), "killed: not found");
    }

    @Test
    void shouldSetTheEndWithTimeoutButOnlyExtendItWithConnect() {
        SandboxRuntime sandbox = create("alice", base(300, Map.of()));
        Instant created = l.clock.instant();

        sandboxes.setTimeout(sandbox, 30);
        assertEquals(Optional.of(created.plusSeconds(30)), l.find(sandbox.id()).endsAt(), "shortened");

        E2bSandboxes.Connected connected = sandboxes.connect(l.find(sandbox.id()), 10);
        assertFalse(connected.resumed());
        assertEquals(Optional.of(created.plusSeconds(30)), l.find(sandbox.id()).endsAt(), "connect never shortens");

        sandboxes.connect(l.find(sandbox.id()), 600);
        assertEquals(Optional.of(created.plusSeconds(600)), l.find(sandbox.id()).endsAt(), "extended");
    }

    @Test
    void shouldPauseOnceAndResumeOnConnect() {
        SandboxRuntime sandbox = create("alice", base(300, Map.of()));

        sandboxes.pause(sandbox);
        SandboxRuntime paused = l.find(sandbox.id());
        assertEquals(RuntimeStatus.PAUSED, paused.status());
        assertEquals(Phase.PAUSED, l.backend.phase(paused.containerName()));
        Refused again = assertThrows(Refused.class, () -> sandboxes.pause(paused));
        assertEquals(Refused.Reason.CONFLICT, again.reason(), "E2B's 409: the SDK answers false");
        assertThrows(Refused.class, () -> sandboxes.resume(create("alice", base(300, Map.of())), 300),
                "resuming a running one is a conflict too");

        after(1000);
        E2bSandboxes.Connected connected = sandboxes.connect(paused, 120);
        assertTrue(connected.resumed(), "E2B's 201");
        assertEquals(RuntimeStatus.READY, connected.runtime().status());
        assertEquals(Optional.of(l.clock.instant().plusSeconds(120)), l.find(sandbox.id()).endsAt(),
                "a new end from now: the old one passed while it was paused");
    }

    @Test
    void shouldEndASandboxReadPastItsEndEvenBeforeTheSweep() {
        SandboxRuntime killed = create("alice", base(10, Map.of()));
        SandboxRuntime paused = create("alice", new NewSandbox("base", 10, Map.of(), Map.of(), null, true));

        after(10);
        assertTrue(sandboxes.find("alice", false, SandboxIds.sandboxId(killed.id())).isEmpty(), "killed at its end");
        SandboxRuntime kept = sandboxes.find("alice", false, SandboxIds.sandboxId(paused.id())).orElseThrow();
        assertEquals(Optional.of(SandboxState.PAUSED), SandboxState.of(kept.status()), "paused at its end");
        assertEquals(RuntimeStatus.STOPPED, l.find(killed.id()).status());
    }

    private static SandboxQuery query(Map<String, String> metadata, Set<SandboxState> states, int limit,
                                      PageToken after) {
        return new SandboxQuery(metadata, states, null, null, false, limit, after);
    }

    @Test
    void shouldListByMetadataStateAndTemplate() {
        SandboxRuntime a = create("alice", base(300, Map.of("k y", "v&w", "team", "x")));
        after(1);
        SandboxRuntime b = create("alice", base(300, Map.of("team", "x")));
        sandboxes.pause(b);
        create("alice", new NewSandbox("team/python:3", 300, Map.of(), Map.of(), null, false));

        assertEquals(List.of(a.id()), ids(sandboxes.list("alice", false,
                query(Map.of("k y", "v&w", "team", "x"), Set.of(), 100, null))), "every pair must match");
        assertEquals(List.of(b.id()), ids(sandboxes.list("alice", false,
                query(Map.of("team", "x"), Set.of(SandboxState.PAUSED), 100, null))));
        assertEquals(2, sandboxes.list("alice", false, SandboxQuery.running(Map.of())).items().size(),
                "v1: the running ones");
        assertEquals(List.of(a.id(), b.id()), ids(sandboxes.list("alice", false,
                new SandboxQuery(Map.of(), Set.of(), "base", null, true, 100, null))), "base's, oldest first");
    }

    @Test
    void shouldPageNewestFirstWithATokenUntilTheLastPageWhichHasNone() {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            created.add(create("alice", base(300, Map.of())).id());
            after(1);
        }

        List<String> seen = new ArrayList<>();
        PageToken next = null;
        for (int page = 0; page < 3; page++) {
            Page<SandboxRuntime> answered = sandboxes.list("alice", false, query(Map.of(), Set.of(), 1, next));
            seen.addAll(ids(answered));
            next = answered.next();
            if (page < 2) {
                assertEquals(answered.next(), PageToken.decode(answered.next().encode()).orElseThrow());
            }
        }
        assertNull(next, "no token on the last page");
        assertEquals(List.of(created.get(2), created.get(1), created.get(0)), seen);
    }

    @Test
    void shouldSampleWhatTheBackendMeasuresAgainstTheSandboxesOwnSize() {
        SandboxRuntime sandbox = create("alice", base(300, Map.of()));
        assertTrue(sandboxes.metrics(sandbox).isEmpty(), "nothing measured: no sample");

        l.backend.uses(sandbox.containerName(), new SandboxUsage(50.0, 100L << 20, 8L << 20));
        SandboxMetric metric = sandboxes.metrics(sandbox).orElseThrow();

        assertEquals(1, metric.cpuCount());
        assertEquals(50.0, metric.cpuUsedPct(), 0.001, "of its one CPU");
        assertEquals(100L << 20, metric.memUsed());
        assertEquals(512L << 20, metric.memTotal(), "its memory limit");
        assertEquals(8L << 20, metric.memCache());
        assertEquals(l.clock.instant(), metric.at());
    }

    private static List<String> ids(Page<SandboxRuntime> page) {
        return page.items().stream().map(SandboxRuntime::id).toList();
    }

    @Test
    void shouldCreateFromASnapshotOfTheCallersOnly() {
        snapshots.put("snap-0123456789abcdef", new Snapshot("snap-0123456789abcdef", "alice", "s", "rt-x", "local",
                "dockyard/snapshot:snap-0123456789abcdef", "vol", 1, 0, Instant.EPOCH));

        create("alice", new NewSandbox("snap-0123456789abcdef", 300, Map.of(), Map.of(), null, false));
        assertEquals("snap-0123456789abcdef", asked.get(0).workspace().fromSnapshot(), "booted on its files");
        assertEquals("snap-0123456789abcdef", asked.get(0).metadata().template());

        Refused refused = assertThrows(Refused.class, () -> create("bob", new NewSandbox("snap-0123456789abcdef",
                300, Map.of(), Map.of(), null, false)));
        assertEquals(Refused.Reason.VALIDATION, refused.reason(), "another user's snapshot is no template of bob's");
    }

    @Test
    void shouldForkWithTheSourcesTemplateMetadataAndEndAndAnswerEachForkOnItsOwn() {
        SandboxRuntime source = create("alice", new NewSandbox("base", 300, Map.of("k", "v"), Map.of(), null, true));

        List<E2bSandboxes.Forked> forks = sandboxes.fork(source, "alice", Role.USER, 60, 2);

        assertEquals(2, forks.size());
        for (E2bSandboxes.Forked fork : forks) {
            SandboxRuntime forked = fork.sandbox();
            assertEquals(RuntimeStatus.READY, forked.status());
            assertEquals(new RuntimeMetadata("base", Map.of("k", "v")), forked.metadata());
            assertEquals(Optional.of(l.clock.instant().plusSeconds(60)), forked.endsAt());
            assertEquals(EndAction.PAUSE, forked.atEnd(), "paused at its end, as its source");
        }
        assertEquals("snap-f", asked.get(1).workspace().fromSnapshot());
        assertTrue(asked.get(1).conversationId().startsWith("e2b-"));

        refuseFork = new Refused(Refused.Reason.QUOTA_EXCEEDED, "Quota maxSnapshots exceeded");
        E2bSandboxes.Forked refused = sandboxes.fork(source, "alice", Role.USER, 60, 1).get(0);
        assertNull(refused.sandbox());
        assertEquals(Refused.Reason.QUOTA_EXCEEDED, refused.refusal().reason());
    }
}
