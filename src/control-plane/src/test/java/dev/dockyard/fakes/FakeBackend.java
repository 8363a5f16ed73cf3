package dev.dockyard.fakes;

import dev.dockyard.backend.BackendCapabilities;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.CapturedSnapshot;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxUsage;
import dev.dockyard.backend.SnapshotCapture;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A backend whose sandboxes are entries in a map, labelled with the runtime they serve. Records
 * every call, so tests can assert what was (not) done; {@link #onCall} runs inside each call (e.g.
 * to check that no transaction is active).
 */
public class FakeBackend implements RuntimeBackend {

    public record Sandbox(String name, String runtimeId, Instant createdAt, SandboxState.Phase phase, int port) {
        Sandbox with(SandboxState.Phase next) {
            return new Sandbox(name, runtimeId, createdAt, next, port);
        }
    }

    private final Map<String, Sandbox> sandboxes = new LinkedHashMap<>();
    /** What a created sandbox's spec said (a sandbox {@link #put} there has none: every control plane lists it). */
    private final Map<String, SandboxSpec> specsByName = new HashMap<>();
    /** The key each sandbox's executor took: its spec's, or the one its revival handed. */
    private final Map<String, String> keys = new HashMap<>();
    /** What each sandbox uses, as a test set it ({@link #uses}). */
    private final Map<String, SandboxUsage> usages = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final List<SandboxSpec> specs = new ArrayList<>();
    private boolean listable = true;
    /** Sandboxes the lists leave out while they are there (a remote listed status by status). */
    private final Set<String> unlisted = new HashSet<>();
    private Consumer<String> onCall = call -> { };
    private RuntimeException pingFailure;
    private final Set<String> portsTaken = new HashSet<>();
    private final Set<String> addressesLost = new HashSet<>();
    private RuntimeException unpauseFailure;
    private RuntimeException reviveFailure;
    private RuntimeException pauseAnswerLost;
    private boolean unanswering;
    private RuntimeException captureFailure;
    private final Set<String> leftCaptures = new HashSet<>();
    private SnapshotCapture captured;
    private int nextPort = 40000;

    public synchronized FakeBackend put(String name, String runtimeId, Instant createdAt, SandboxState.Phase phase) {
        // a sandbox put again keeps its port, and no two sandboxes share one
        Sandbox before = sandboxes.get(name);
        sandboxes.put(name, new Sandbox(name, runtimeId, createdAt, phase, before != null ? before.port() : nextPort++));
        return this;
    }

    public synchronized SandboxState.Phase phase(String name) {
        Sandbox sandbox = sandboxes.get(name);
        return sandbox == null ? SandboxState.Phase.MISSING : sandbox.phase();
    }

    public synchronized void leaveOutOfLists(String sandboxName) {
        unlisted.add(sandboxName);
    }

    /** Lists answer no more ({@link #listableAgain} undoes it). */
    public synchronized void unlistable() {
        listable = false;
    }

    /** Answers the list again (after {@link #unlistable}). */
    public synchronized void listableAgain() {
        listable = true;
    }

    private volatile Duration disconnectAfter;

    /** Acts as a backend whose runtimes are disconnected once it cannot be listed for {@code after}. */
    public void disconnectAfter(Duration after) {
        disconnectAfter = after;
    }

    public synchronized void onCall(Consumer<String> check) {
        onCall = check;
    }

    /** Every spec {@link #create} was given, in order. */
    public synchronized List<SandboxSpec> createdSpecs() {
        return List.copyOf(specs);
    }

    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    private void called(String call) {
        calls.add(call);
        onCall.accept(call);
    }

    /** What {@link #name()} answers, the node's type: "cli" or "local" for a node of this host. */
    public String type = "fake";

    /** As the node type and the settings above make it. */
    @Override
    public BackendCapabilities capabilities() {
        return new BackendCapabilities(freezes, pausesOnItsOwn, !type.equals("cli") && !type.equals("local"),
                Optional.ofNullable(disconnectAfter));
    }

    /** How many times {@link #prepare} ran; what it throws, if anything. */
    public int prepared;
    public RuntimeException prepareFailure;

    @Override
    public void prepare() {
        prepared++;
        if (prepareFailure != null) {
            throw prepareFailure;
        }
    }

    @Override
    public String name() {
        return type;
    }

    /** Makes every {@link #ping} fail with {@code failure} (null: answer again), as an engine that stopped. */
    public synchronized void pingFails(RuntimeException failure) {
        pingFailure = failure;
    }

    @Override
    public synchronized void ping() {
        if (pingFailure != null) {
            throw pingFailure;
        }
    }

    /** Acts as a node where another process of the host took the port of {@code sandboxName}'s executor. */
    public synchronized void portTaken(String sandboxName) {
        portsTaken.add(sandboxName);
    }

    /** Acts as a node where {@code sandboxName} no longer publishes its executor's address (it stopped). */
    public synchronized void addressLost(String sandboxName, boolean lost) {
        if (lost) {
            addressesLost.add(sandboxName);
        } else {
            addressesLost.remove(sandboxName);
        }
    }

    /** Acts as a node whose engine cannot confirm where its sandboxes publish (it does not answer). */
    public synchronized void unanswering(boolean cut) {
        unanswering = cut;
    }

    @Override
    public synchronized boolean listensAt(String sandboxName, URI endpoint) {
        if (unanswering) {
            throw new EngineUnreachableException("the engine of node 'fake' does not answer", null);
        }
        if (portsTaken.contains(sandboxName)) {
            throw new BackendException("another process than the executor of '" + sandboxName + "' listens at "
                    + endpoint);
        }
        // as Docker's engine: a frozen container's port answers nothing (a node that pauses on its own
        // is a remote control plane, whose address answers and resumes on the next call)
        Sandbox sandbox = sandboxes.get(sandboxName);
        boolean frozen = !pausesOnItsOwn && sandbox != null && sandbox.phase() == SandboxState.Phase.PAUSED;
        return !addressesLost.contains(sandboxName) && !frozen;
    }

    @Override
    public synchronized String create(SandboxSpec spec) {
        called("create " + spec.name());
        specs.add(spec);
        specsByName.put(spec.name(), spec);
        keys.put(spec.name(), spec.sessionKey());
        put(spec.name(), spec.runtimeId(), Instant.EPOCH, SandboxState.Phase.CREATED);
        return "id-" + spec.name();
    }

    @Override
    public synchronized void awaitRunning(String sandboxName, Duration timeout) {
        called("await " + sandboxName + " " + timeout.toSeconds() + "s");
    }

    private volatile boolean pausesOnItsOwn;

    /** Acts as a node that pauses sandboxes on its own (a remote control plane's idle lifecycle). */
    public FakeBackend pausingOnItsOwn() {
        pausesOnItsOwn = true;
        return this;
    }

    @Override
    public synchronized void awaken(String sandboxName) {
        called("awaken " + sandboxName);
        if (pausesOnItsOwn) {
            sandboxes.computeIfPresent(sandboxName, (n, s) -> s.phase() == SandboxState.Phase.PAUSED
                    ? s.with(SandboxState.Phase.RUNNING) : s);
        }
    }

    @Override
    public synchronized boolean awakenAfterRefusal(String sandboxName) {
        called("awakenAfterRefusal " + sandboxName);
        if (!pausesOnItsOwn || phase(sandboxName) == SandboxState.Phase.MISSING) {
            return false;
        }
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.phase() == SandboxState.Phase.PAUSED
                ? s.with(SandboxState.Phase.RUNNING) : s);
        return phase(sandboxName) == SandboxState.Phase.RUNNING;
    }

    private volatile Instant unansweredSince;

    /** Acts as a backend that has given no answer since {@code since} (null: it answers). */
    public void unansweredSince(Instant since) {
        unansweredSince = since;
    }

    @Override
    public Optional<Instant> unansweredSince() {
        return Optional.ofNullable(unansweredSince);
    }

    @Override
    public synchronized URI start(String sandboxName, int executorPort) {
        called("start " + sandboxName);
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.with(SandboxState.Phase.RUNNING));
        return endpoint(sandboxName, executorPort);
    }

    /** Makes every {@link #revive} fail with {@code failure} (null: starts again), as an engine that is restarting. */
    public synchronized void reviveFailing(RuntimeException failure) {
        reviveFailure = failure;
    }

    @Override
    public synchronized URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
        called("revive " + sandboxName);
        if (reviveFailure != null) {
            throw reviveFailure;
        }
        if (!sandboxes.containsKey(sandboxName)) {
            throw new BackendException("container '" + sandboxName + "' is gone", null);
        }
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.with(SandboxState.Phase.RUNNING));
        keys.put(sandboxName, sessionKey);
        return endpoint(sandboxName, executorPort);
    }

    /** The key the sandbox's executor took, or null. */
    public synchronized String keyOf(String sandboxName) {
        return keys.get(sandboxName);
    }

    @Override
    public synchronized URI endpoint(String sandboxName, int executorPort) {
        Sandbox sandbox = sandboxes.get(sandboxName);
        if (sandbox == null) {
            throw new BackendException("container '" + sandboxName + "' is gone", null);
        }
        return URI.create("http://127.0.0.1:" + sandbox.port());
    }

    @Override
    public synchronized void settle(String sandboxName, double cpus) {
        called("settle " + sandboxName);
    }

    @Override
    public synchronized SandboxState inspect(String sandboxName) {
        return new SandboxState(phase(sandboxName), null, "");
    }

    private volatile boolean freezes = true;

    /** Like a Kubernetes node: no freezer, {@link #pause} leaves the sandbox running. */
    public FakeBackend withoutFreezer() {
        freezes = false;
        return this;
    }

    @Override
    public synchronized void pause(String sandboxName) {
        called("pause " + sandboxName);
        if (!freezes) {
            return;
        }
        Sandbox sandbox = sandboxes.get(sandboxName);
        if (sandbox != null && (sandbox.phase() == SandboxState.Phase.EXITED || sandbox.phase() == SandboxState.Phase.CREATED)) {
            // as Docker: a stopped container cannot be frozen
            throw new SandboxNotRunningException("container '" + sandboxName + "' is not running", null);
        }
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.with(SandboxState.Phase.PAUSED));
        if (pauseAnswerLost != null) {
            // the engine froze it, and its answer never came back (the connection broke)
            throw pauseAnswerLost;
        }
    }

    /** Acts as a node whose engine carries out every freeze and loses its answer with {@code failure} (null: answers again). */
    public synchronized void pauseAnswerLost(RuntimeException failure) {
        pauseAnswerLost = failure;
    }

    /** Acts as a node whose engine refuses every thaw with {@code failure} (null: thaws again). */
    public synchronized void unpauseFailing(RuntimeException failure) {
        unpauseFailure = failure;
    }

    /** Acts as a node that takes snapshots, each answered {@code capture}. */
    public synchronized void captureAs(SnapshotCapture capture) {
        captured = capture;
    }

    /** Acts as a node whose captures fail with {@code failure} after making their parts, which stay (null: as before). */
    public synchronized void captureFailing(RuntimeException failure) {
        captureFailure = failure;
    }

    /** The snapshot ids whose parts a failed capture left here. */
    public synchronized Set<String> leftCaptures() {
        return Set.copyOf(leftCaptures);
    }

    @Override
    public synchronized int sweepCaptures(String controlPlane, Predicate<CapturedSnapshot> abandoned) {
        if (unanswering) {
            throw new EngineUnreachableException("the engine of node 'fake' does not answer", null);
        }
        Set<String> swept = new HashSet<>();
        for (String id : leftCaptures) {
            if (abandoned.test(new CapturedSnapshot(id, controlPlane, Instant.EPOCH))) {
                swept.add(id);
            }
        }
        leftCaptures.removeAll(swept);
        return swept.size();
    }

    @Override
    public synchronized SnapshotCapture capture(String sandboxName, String snapshotId, Map<String, String> labels) {
        called("capture " + sandboxName);
        if (captureFailure != null) {
            leftCaptures.add(snapshotId);
            throw captureFailure;
        }
        if (captured == null) {
            throw new BackendException("backend 'fake' takes no snapshots");
        }
        return captured;
    }

    @Override
    public synchronized void unpause(String sandboxName) {
        called("unpause " + sandboxName);
        if (unpauseFailure != null) {
            throw unpauseFailure;
        }
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.with(SandboxState.Phase.RUNNING));
    }

    @Override
    public synchronized void stop(String sandboxName) {
        called("stop " + sandboxName);
        if (!sandboxes.containsKey(sandboxName)) {
            throw new BackendException("container '" + sandboxName + "' is gone", null);
        }
        sandboxes.computeIfPresent(sandboxName, (n, s) -> s.with(SandboxState.Phase.EXITED));
    }

    @Override
    public synchronized List<ManagedSandbox> listManaged(String controlPlane) {
        called("list");
        if (!listable) {
            throw new BackendException("the engine does not answer", null);
        }
        return sandboxes.values().stream().filter(s -> !unlisted.contains(s.name())).filter(s -> {
            SandboxSpec spec = specsByName.get(s.name());
            return spec == null || spec.controlPlane().equals(controlPlane);
        }).map(s -> new ManagedSandbox(s.name(), s.runtimeId(), specsByName.containsKey(s.name())
                ? specsByName.get(s.name()).conversationId() : "conv", s.createdAt(), s.phase())).toList();
    }

    @Override
    public synchronized InputStream archive(String sandboxName, String path) {
        called("archive " + sandboxName + " " + path);
        return new ByteArrayInputStream(new byte[0]);
    }

    @Override
    public synchronized void restore(String sandboxName, String directory, InputStream tar) {
        called("restore " + sandboxName + " " + directory);
    }

    @Override
    public synchronized void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
        called("environment " + sandboxName);
    }

    /** What {@link #usage} answers for the sandbox from now on (an engine's stats); none by default. */
    public synchronized void uses(String sandboxName, SandboxUsage usage) {
        usages.put(sandboxName, usage);
    }

    @Override
    public synchronized Optional<SandboxUsage> usage(String sandboxName) {
        return sandboxes.containsKey(sandboxName) ? Optional.ofNullable(usages.get(sandboxName)) : Optional.empty();
    }

    @Override
    public synchronized void remove(String sandboxName) {
        called("remove " + sandboxName);
        sandboxes.remove(sandboxName);
        specsByName.remove(sandboxName);
        keys.remove(sandboxName);
    }
}
