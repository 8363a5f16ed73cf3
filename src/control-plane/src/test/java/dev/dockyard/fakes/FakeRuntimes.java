package dev.dockyard.fakes;

import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The runtime table in memory: unit tests drive the real journal, reconciler and lifecycle over it. */
public class FakeRuntimes implements RuntimeRepository {

    private final Map<String, SandboxRuntime> rows = new LinkedHashMap<>();
    private final List<StatusChange> changes = new ArrayList<>();

    @Override
    public synchronized Optional<SandboxRuntime> find(String id) {
        return Optional.ofNullable(rows.get(id));
    }

    @Override
    public synchronized Optional<SandboxRuntime> lock(String id) {
        return find(id);
    }

    @Override
    public synchronized void add(SandboxRuntime runtime, StatusChange first) {
        rows.put(runtime.id(), runtime);
        changes.add(first);
    }

    @Override
    public synchronized void record(StatusChange change) {
        changes.add(change);
    }

    @Override
    public void flush() {
    }

    @Override
    public synchronized Optional<SandboxRuntime> findLive(String userId, String conversationId) {
        return rows.values().stream().filter(r -> r.status().isLive() && r.replaces() == null
                && r.userId().equals(userId) && r.conversationId().equals(conversationId)).findFirst();
    }

    @Override
    public synchronized List<SandboxRuntime> list(String userId, String conversationId, RuntimeStatus status) {
        return rows.values().stream().filter(r -> userId == null || r.userId().equals(userId))
                .filter(r -> conversationId == null || r.conversationId().equals(conversationId))
                .filter(r -> status == null || r.status() == status)
                .sorted(Comparator.comparing(SandboxRuntime::createdAt).reversed()).toList();
    }

    @Override
    public synchronized Optional<SandboxRuntime> replacementOf(String runtimeId) {
        return rows.values().stream().filter(r -> runtimeId.equals(r.replaces()) && r.status().isLive()).findFirst();
    }

    @Override
    public synchronized List<SandboxRuntime> live() {
        return rows.values().stream().filter(r -> r.status().isLive()).toList();
    }

    @Override
    public synchronized int forgetEnded(String userId) {
        List<String> ended = rows.values().stream().filter(r -> r.userId().equals(userId))
                .filter(r -> r.status() == RuntimeStatus.STOPPED || r.status() == RuntimeStatus.ERROR)
                .map(SandboxRuntime::id).toList();
        ended.forEach(rows::remove);
        changes.removeIf(c -> ended.contains(c.runtimeId()));
        return ended.size();
    }

    @Override
    public synchronized int forgetEndedBefore(Instant cutoff, int max) {
        List<String> ended = rows.values().stream()
                .filter(r -> r.status() == RuntimeStatus.STOPPED || r.status() == RuntimeStatus.ERROR)
                .filter(r -> r.updatedAt().isBefore(cutoff)).limit(max).map(SandboxRuntime::id).toList();
        ended.forEach(rows::remove);
        changes.removeIf(c -> ended.contains(c.runtimeId()));
        return ended.size();
    }

    @Override
    public synchronized int forgetChangesBefore(Instant cutoff, int max) {
        List<StatusChange> old = changes.stream().filter(c -> c.at().isBefore(cutoff))
                .filter(c -> changes.stream().anyMatch(n -> n.runtimeId().equals(c.runtimeId()) && n.at().isAfter(c.at())))
                .limit(max).toList();
        changes.removeAll(old);
        return old.size();
    }

    @Override
    public synchronized List<StatusChange> history(String runtimeId) {
        return changes.stream().filter(c -> c.runtimeId().equals(runtimeId)).toList();
    }

    /** Every recorded change, in order. */
    public synchronized List<StatusChange> changes() {
        return List.copyOf(changes);
    }

    @Override
    public synchronized List<Count> countByStatusAndNode() {
        Map<String, Count> counts = new LinkedHashMap<>();
        for (SandboxRuntime r : rows.values()) {
            counts.merge(r.status() + "@" + r.node(), new Count(r.status(), r.node(), 1),
                    (a, b) -> new Count(a.status(), a.node(), a.runtimes() + b.runtimes()));
        }
        return new ArrayList<>(counts.values());
    }
}
