package dev.dockyard.workspace;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where kept workspaces and snapshots are kept: the port of {@link WorkspaceRecords}, implemented
 * on JPA in {@code persistence}. Transactions belong to the caller ({@link WorkspaceRecords} opens
 * a short one per call), so every method joins whatever transaction is active.
 */
public interface WorkspaceStore {

    void add(KeptWorkspace workspace);

    /** The kept workspace; changes to it are stored with the transaction. */
    Optional<KeptWorkspace> workspace(String id);

    /** The kept workspace's row, locked for the rest of the transaction: two claims never interleave. */
    Optional<KeptWorkspace> lockWorkspace(String id);

    Optional<KeptWorkspace> workspaceOnVolume(String volume);

    /** A user's kept workspaces, or everyone's for {@code userId} null; newest first. */
    List<KeptWorkspace> workspaces(String userId);

    void remove(KeptWorkspace workspace);

    /**
     * The volume of every kept workspace and snapshot, and the runtime each kept workspace was
     * kept from (where there is one).
     */
    Set<String> volumesAndSources();

    void add(Snapshot snapshot);

    Optional<Snapshot> snapshot(String id);

    /** A user's snapshots, or everyone's for {@code userId} null; newest first. */
    List<Snapshot> snapshots(String userId);

    void remove(Snapshot snapshot);
}
