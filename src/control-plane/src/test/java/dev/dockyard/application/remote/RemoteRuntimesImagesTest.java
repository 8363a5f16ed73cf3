package dev.dockyard.application.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.Refused;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.fakes.FakeImages;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /image_exists} and {@code /start} see only the images the caller may use (issue 26). */
class RemoteRuntimesImagesTest {

    private static final String SNAPSHOT_ID = "sha256:5a" + "1".repeat(62);

    private final FakeImages engine = new FakeImages();
    private final RemoteRuntimes runtimes = new RemoteRuntimes();

    @BeforeEach
    void wire() {
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:c2" + "0".repeat(62), Set.of("dockyard/sandbox:latest"),
                1, Map.of(Labels.RUNTIME_IMAGE, "true")));
        engine.add(new RuntimeImageBuilder.ImageInfo(SNAPSHOT_ID, Set.of("dockyard/snapshot:snap-a"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.SNAPSHOT_ID, "snap-a", Labels.OWNER, "alice")));
        engine.add(new RuntimeImageBuilder.ImageInfo("sha256:f0" + "2".repeat(62), Set.of("dockyard/it-foreign:x"), 1,
                Map.of()));
        FakeNodes nodes = new FakeNodes("local") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return engine;
            }
        };
        TestConfig config = new TestConfig() {
            @Override
            public List<String> imagesAllowed() {
                return List.of("dockyard/it-foreign:*");
            }
        };
        runtimes.nodes = nodes;
        runtimes.imageAccess = new ImageAccess(nodes, config, new WorkspaceRecords());
        runtimes.journal = new ProvisioningJournal() {
            @Override
            public Optional<SandboxRuntime> live(String userId, String conversationId) {
                return Optional.empty();
            }
        };
    }

    @Test
    void shouldAnswerNoImageForAnIdPrefix() {
        for (int i = 0; i < 256; i++) {
            String prefix = String.format("%02x", i);
            assertFalse(runtimes.image(prefix, "bob", false).isPresent(), prefix);
        }
    }

    @Test
    void shouldHideAnotherUsersSnapshotImage() {
        assertFalse(runtimes.image("dockyard/snapshot:snap-a", "bob", false).isPresent());
        assertFalse(runtimes.image(SNAPSHOT_ID, "bob", false).isPresent());
        assertTrue(runtimes.image("dockyard/snapshot:snap-a", "alice", false).isPresent());
        assertTrue(runtimes.image("dockyard/snapshot:snap-a", "root", true).isPresent());
        assertTrue(runtimes.image("dockyard/it-foreign:x", "bob", false).isPresent(), "allow-listed");
        assertTrue(runtimes.image("dockyard/sandbox:latest", "bob", false).isPresent());
    }

    @Test
    void shouldStartDockyardsExecutorOnTheServerTheStartNamesAndGiveAnotherImagesProgramNone() {
        List<ProvisioningRequest> asked = new ArrayList<>();
        runtimes.lifecycle = new RuntimeService() {
            @Override
            public SandboxRuntime provision(ProvisioningRequest request) {
                asked.add(request);
                return new SandboxRuntime(request.conversationId(), request.userId(), "fake", request.image(), 1, 1024,
                        120, Instant.EPOCH);
            }
        };
        runtimes.agents = new AgentCatalog() {
            @Override
            public Optional<AgentProfile> find(String name) {
                return Optional.of(new AgentProfile(name, LlmSettings.NONE, null, null, List.of()));
            }

            @Override
            public String defaultAgent() {
                return "CodeActAgent";
            }
        };
        runtimes.config = new TestConfig() {
            @Override
            public double sandboxCpus() {
                return 1;
            }

            @Override
            public int sandboxMemoryMb() {
                return 1024;
            }

            @Override
            public double maxCpus() {
                return 8;
            }

            @Override
            public int maxMemoryMb() {
                return 16384;
            }

            @Override
            public Duration sandboxTimeout() {
                return Duration.ofSeconds(120);
            }

            @Override
            public List<Integer> runtimeApiWorkPorts() {
                return List.of();
            }
        };
        RemoteStart executor = new RemoteStart("s1", "dockyard/sandbox:latest", List.of(), null, Map.of(), 1, null,
                null, "http://x", null);
        RemoteStart program = new RemoteStart("s2", "dockyard/it-foreign:x", List.of("serve"), null, Map.of(), 1, null,
                null, "http://x", null);

        runtimes.start("bob", Role.USER, executor.withExecutorServer(ExecutorServer.LIBERTY));
        runtimes.start("bob", Role.USER, executor);
        runtimes.start("bob", Role.USER, program.withExecutorServer(ExecutorServer.LIBERTY));

        assertEquals(ExecutorServer.LIBERTY, asked.get(0).executorServer(), "as a remote node's control plane asks");
        assertNull(asked.get(1).executorServer(), "none named: the node's");
        assertNull(asked.get(2).executorServer(), "its program runs no executor");
    }

    @Test
    void shouldRefuseToStartAnotherUsersSnapshotImageLikeAnAbsentOne() {
        for (String image : List.of("dockyard/snapshot:snap-a", "5a", SNAPSHOT_ID, "dockyard/absent:none")) {
            Refused refused = assertThrows(Refused.class, () -> runtimes.start("bob", Role.USER,
                    new RemoteStart("s1", image, List.of(), null, Map.of(), 1, null, null, "http://x", null)));
            assertEquals(Refused.Reason.VALIDATION, refused.reason(), image);
            assertTrue(refused.getMessage().startsWith("image '" + image + "' not found on node 'local'"),
                    refused.getMessage());
        }
    }
}
