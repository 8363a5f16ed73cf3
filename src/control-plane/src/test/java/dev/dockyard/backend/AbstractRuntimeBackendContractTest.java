package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every backend does alike, whatever a sandbox is there (a container, a pod, a process tree, a
 * directory): the part of {@link RuntimeBackend} that the provisioner, hibernation and the
 * reconciler rely on without asking which backend they talk to. A sandbox is listed only to the
 * control plane that made it; it serves where {@code start} said, with the key of its spec; stopped,
 * it is {@code EXITED} and a revival hands it the key it is given then (the reconciler hands a
 * sandbox that lost its key the runtime's key again, hibernation wakes one with it); removed, it is
 * gone, and removing it again is no error.
 *
 * <p>One short subclass per backend gives it a node and says how to see which key a sandbox's
 * executor takes; the backend's own test class keeps what only that backend does. (The fabric8
 * client's {@code Abstract*Test} suites are the model.)
 */
public abstract class AbstractRuntimeBackendContractTest {

    protected static final String CONTROL_PLANE = "cp-contract";
    protected static final String KEY = "contract-key-0123456789abcdef";
    protected static final String NEW_KEY = "contract-new-key-0123456789abcdef";
    protected static final int EXECUTOR_PORT = 8000;
    private static final Duration AWAIT = Duration.ofSeconds(10);

    private RuntimeBackend backend;
    private final List<String> created = new ArrayList<>();

    /** A node of this backend, fresh for one test. */
    protected abstract RuntimeBackend node() throws Exception;

    /** A sandbox as the provisioner asks this backend for one, for {@code runtimeId} of {@code controlPlane}. */
    protected abstract SandboxSpec spec(String runtimeId, String controlPlane, String key);

    /** Whether the sandbox's executor takes {@code key} now, seen as this backend hands keys over. */
    protected abstract boolean takesKey(String sandboxName, String key) throws Exception;

    /** Ends what {@link #node} started beside the backend (a server, a kubelet stand-in). */
    protected void closeNode() throws Exception {
    }

    @BeforeEach
    void openNode() throws Exception {
        backend = node();
    }

    @AfterEach
    void removeSandboxes() throws Exception {
        try {
            for (String name : created) {
                backend.remove(name);
            }
        } finally {
            closeNode();
        }
    }

    protected final RuntimeBackend backend() {
        return backend;
    }

    private SandboxSpec create(String runtimeId, String controlPlane, String key) {
        SandboxSpec spec = spec(runtimeId, controlPlane, key);
        created.add(spec.name());
        backend.create(spec);
        return spec;
    }

    @Test
    void shouldListOnlyTheSandboxesOfItsControlPlane() {
        SandboxSpec mine = create("rt-mine", CONTROL_PLANE, KEY);
        create("rt-theirs", "another-control-plane", KEY);

        List<ManagedSandbox> listed = backend.listManaged(CONTROL_PLANE);

        assertEquals(List.of(mine.name()), listed.stream().map(ManagedSandbox::name).toList());
        assertEquals(mine.runtimeId(), listed.get(0).runtimeId());
        assertEquals(mine.conversationId(), listed.get(0).conversationId());
        assertEquals(List.of(), backend.listManaged("nobody-here"));
    }

    @Test
    void shouldServeWhereItSaidWithTheKeyOfItsSpec() throws Exception {
        SandboxSpec spec = create("rt-serving", CONTROL_PLANE, KEY);

        URI started = backend.start(spec.name(), EXECUTOR_PORT);
        backend.awaitRunning(spec.name(), AWAIT);

        assertEquals(started, backend.endpoint(spec.name(), EXECUTOR_PORT));
        assertEquals(SandboxState.Phase.RUNNING, backend.inspect(spec.name()).phase());
        assertTrue(takesKey(spec.name(), KEY), "the key of its spec");
        assertEquals(List.of(SandboxState.Phase.RUNNING), backend.listManaged(CONTROL_PLANE).stream()
                .map(ManagedSandbox::phase).toList());
    }

    @Test
    void shouldStopAndReviveWithTheKeyItIsGivenThen() throws Exception {
        SandboxSpec spec = create("rt-revived", CONTROL_PLANE, KEY);
        backend.start(spec.name(), EXECUTOR_PORT);
        backend.awaitRunning(spec.name(), AWAIT);

        backend.stop(spec.name());
        assertEquals(SandboxState.Phase.EXITED, backend.inspect(spec.name()).phase());
        assertEquals(List.of(spec.name()), backend.listManaged(CONTROL_PLANE).stream().map(ManagedSandbox::name).toList(),
                "a stopped sandbox is still its control plane's");
        assertEquals(List.of(SandboxState.Phase.EXITED), backend.listManaged(CONTROL_PLANE).stream()
                .map(ManagedSandbox::phase).toList());

        URI revived = backend.revive(spec.name(), NEW_KEY, spec.user(), EXECUTOR_PORT);

        assertEquals(SandboxState.Phase.RUNNING, backend.inspect(spec.name()).phase());
        assertEquals(revived, backend.endpoint(spec.name(), EXECUTOR_PORT));
        assertTrue(takesKey(spec.name(), NEW_KEY), "the key handed at the revival");
        assertFalse(takesKey(spec.name(), KEY), "not the one it had before");
    }

    @Test
    void shouldRemoveASandboxOnceAndForgetIt() {
        SandboxSpec spec = create("rt-removed", CONTROL_PLANE, KEY);
        backend.start(spec.name(), EXECUTOR_PORT);

        backend.remove(spec.name());

        assertDoesNotThrow(() -> backend.remove(spec.name()), "removing it again");
        assertEquals(SandboxState.Phase.MISSING, backend.inspect(spec.name()).phase());
        assertEquals(List.of(), backend.listManaged(CONTROL_PLANE));
    }
}
