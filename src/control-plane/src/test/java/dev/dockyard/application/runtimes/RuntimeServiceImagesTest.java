package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.Refused;
import dev.dockyard.application.images.BrowserVariant;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.application.workspaces.Workspaces;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.fakes.FakeImages;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A provision names an image the caller may use and the node has, or is refused before anything is recorded. */
class RuntimeServiceImagesTest {

    private final FakeImages engine = new FakeImages();
    private final List<ProvisioningRequest> provisioned = new ArrayList<>();
    private final RuntimeService service = new RuntimeService();

    @BeforeEach
    void wire() {
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:c2" + "0".repeat(62), Set.of("dockyard/sandbox:latest"),
                1, Map.of(Labels.RUNTIME_IMAGE, "true")));
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:5a" + "1".repeat(62), Set.of("dockyard/snapshot:snap-a"),
                1, Map.of(Labels.RUNTIME_IMAGE, "true", Labels.SNAPSHOT_ID, "snap-a", Labels.OWNER, "alice")));
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:f0" + "2".repeat(62), Set.of("python:3.12"), 1,
                Map.of()));
        FakeNodes nodes = new FakeNodes("local") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return engine;
            }
        };
        TestConfig config = new TestConfig();
        service.images = new ImageAccess(nodes, config, new WorkspaceRecords());
        service.browserVariant = new BrowserVariant(nodes, config);
        service.workspaces = new Workspaces();
        service.provisioner = new Provisioner() {
            @Override
            public SandboxRuntime provision(ProvisioningRequest request) {
                provisioned.add(request);
                return new SandboxRuntime(request.conversationId(), request.userId(), "local", request.image(), 1.0,
                        512, 60, Instant.EPOCH);
            }
        };
    }

    private static ProvisioningRequest request(String userId, Role role, String image) {
        return new ProvisioningRequest(userId, role, "conv", new AgentProfile("CodeActAgent",
                new LlmSettings(null, null, null), null, null, List.of()), new LlmSettings(null, null, null), image, 1,
                512, 60, Map.of(), ExtraDependencies.NONE, List.of(), null, false, null);
    }

    private Refused refused(String userId, String image) {
        return assertThrows(Refused.class, () -> service.provision(request(userId, Role.USER, image)));
    }

    @Test
    void shouldBuildTheBrowserVariantFromTheDefaultImageOnANodeThatLacksIt() {
        service.provision(request("bob", Role.USER, "dockyard/sandbox-browser:latest"));

        ProvisioningRequest asked = provisioned.get(0);
        assertEquals("dockyard/sandbox:latest", asked.image());
        assertEquals(List.of("chromium", "fonts-liberation"), asked.extraDependencies().aptPackages());
    }

    @Test
    void shouldLeaveTheBrowserVariantToANodeThatBuildsNothingAndSayItIsAbsent() {
        FakeImages nothingBuilt = new FakeImages() {
            @Override
            public boolean builds() {
                return false;
            }
        };
        nothingBuilt.add(new RuntimeImageBuilder.ImageInfo("sha256:c2" + "0".repeat(62),
                Set.of("dockyard/sandbox:latest"), 1, Map.of(Labels.RUNTIME_IMAGE, "true")));
        FakeNodes cli = new FakeNodes("local") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return nothingBuilt;
            }
        };
        service.images = new ImageAccess(cli, new TestConfig(), new WorkspaceRecords());
        service.browserVariant = new BrowserVariant(cli, new TestConfig());

        assertEquals(Refused.Reason.NOT_FOUND, refused("bob", "dockyard/sandbox-browser:latest").reason());
        assertTrue(provisioned.isEmpty());
    }

    @Test
    void shouldLeaveARequestWithPackagesOfItsOwnAsItIs() {
        ProvisioningRequest own = request("bob", Role.USER, "dockyard/sandbox-browser:latest")
                .withImage("dockyard/sandbox-browser:latest", new ExtraDependencies(List.of("jq"), ""));

        assertEquals(Refused.Reason.NOT_FOUND, assertThrows(Refused.class, () -> service.provision(own)).reason());
    }

    @Test
    void shouldRunTheBrowserVariantWhereItWasBuilt() {
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:b0" + "3".repeat(62),
                Set.of("dockyard/sandbox-browser:latest"), 1, Map.of(Labels.RUNTIME_IMAGE, "true")));

        service.provision(request("bob", Role.USER, "dockyard/sandbox-browser:latest"));

        assertEquals("dockyard/sandbox-browser:latest", provisioned.get(0).image());
        assertTrue(provisioned.get(0).extraDependencies().isEmpty());
    }

    @Test
    void shouldRefuseAnotherUsersSnapshotImageAsIfItWereAbsent() {
        Refused byName = refused("bob", "dockyard/snapshot:snap-a");
        Refused byPrefix = refused("bob", "5a");
        Refused absent = refused("bob", "dockyard/snapshot:nothing");
        assertEquals(Refused.Reason.NOT_FOUND, byName.reason());
        assertEquals(Refused.Reason.NOT_FOUND, byPrefix.reason());
        assertEquals(Refused.Reason.NOT_FOUND, absent.reason());
        assertTrue(provisioned.isEmpty(), "nothing provisioned");
    }

    @Test
    void shouldRefuseAnIdPrefixOfDockyardsOwnImage() {
        assertEquals(Refused.Reason.NOT_FOUND, refused("bob", "c2").reason());
        assertTrue(provisioned.isEmpty());
    }

    @Test
    void shouldRefuseAForeignImageNoAdminAllowed() {
        assertEquals(Refused.Reason.NOT_FOUND, refused("bob", "python:3.12").reason());
        assertTrue(provisioned.isEmpty());
    }

    @Test
    void shouldRefuseAnAbsentImageAtAdmissionNotEndInError() {
        Refused absent = refused("alice", "dockyard/no-such-image:missing");
        assertTrue(absent.getMessage().contains("dockyard/no-such-image:missing"), absent.getMessage());
        assertTrue(absent.getMessage().contains("never pulled"), absent.getMessage());
        assertTrue(provisioned.isEmpty());
    }

    @Test
    void shouldAnswerANodeThatCannotBeAskedAsUnavailable() {
        FakeNodes unreachable = new FakeNodes("remote1") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return new FakeImages() {
                    @Override
                    public Optional<ImageInfo> inspect(String image) {
                        throw new BackendException("connection refused");
                    }
                };
            }
        };
        service.images = new ImageAccess(unreachable, new TestConfig(), new WorkspaceRecords());
        PlacementRefusedException refused = assertThrows(PlacementRefusedException.class,
                () -> service.provision(request("bob", Role.USER, "dockyard/sandbox:latest")));
        assertEquals(PlacementRefusedException.Reason.NODE_UNHEALTHY, refused.reason());
        assertTrue(provisioned.isEmpty());
    }

    @Test
    void shouldProvisionWhatTheCallerMayUse() {
        service.provision(request("bob", Role.USER, "dockyard/sandbox:latest"));
        service.provision(request("alice", Role.USER, "dockyard/snapshot:snap-a"));
        ProvisioningRequest admin = request("root", Role.ADMIN, "python:3.12");
        service.provision(admin);
        assertEquals(3, provisioned.size());
        assertSame(admin, provisioned.get(2));
    }
}
