package dev.dockyard.application.e2b;

import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.workspace.Snapshot;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * E2B's snapshots on Dockyard's: a sandbox's file system at one moment (its container committed,
 * its workspace copied; processes and memory are not kept, unlike E2B's), owned by the sandbox's
 * user and counted against their snapshot quota. A snapshot's id is a template: a sandbox created
 * from it boots on those files ({@link Templates}). Listed newest first, paged like sandboxes.
 */
@ApplicationScoped
public class E2bSnapshots {

    @Inject
    Snapshots snapshots;

    /** A snapshot of the sandbox, named {@code name} (E2B's is optional: the sandbox's id then). */
    public Snapshot capture(SandboxRuntime sandbox, String name) {
        return snapshots.capture(sandbox, name == null ? SandboxIds.sandboxId(sandbox.id()) : name);
    }

    /**
     * One page of the caller's snapshots (everyone's for an admin), of one sandbox and of one name
     * when they are given (null: any), newest first.
     */
    public Page<Snapshot> list(String userId, boolean admin, String sandboxId, String name, int limit,
                               PageToken after) {
        String runtimeId = sandboxId == null ? null : SandboxIds.runtimeId(sandboxId).orElse("");
        List<Snapshot> selected = new ArrayList<>(snapshots.list(userId, admin).stream()
                .filter(s -> runtimeId == null || runtimeId.equals(s.runtimeId()))
                .filter(s -> name == null || name.equals(s.name()))
                .sorted(Comparator.comparing(Snapshot::createdAt).thenComparing(Snapshot::id).reversed())
                .toList());
        if (after != null) {
            selected.removeIf(s -> {
                int byCreation = s.createdAt().compareTo(after.createdAt());
                return (byCreation != 0 ? byCreation : s.id().compareTo(after.id())) >= 0;
            });
        }
        if (selected.size() <= limit) {
            return new Page<>(selected, null);
        }
        List<Snapshot> page = selected.subList(0, limit);
        Snapshot last = page.get(page.size() - 1);
        return new Page<>(page, new PageToken(last.createdAt(), last.id()));
    }

    /** Deletes the caller's snapshot: refused as unknown (404) when it is not theirs or not there. */
    public void delete(String snapshotId, String userId, boolean admin) {
        snapshots.delete(snapshotId, userId, admin);
    }
}
