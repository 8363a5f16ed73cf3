package dev.dockyard.application.users;

import dev.dockyard.application.Refused;
import dev.dockyard.application.idempotency.IdempotencyKeys;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.application.workspaces.Workspaces;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.credentials.StoredCredential;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * What a user keeps under their id besides their account, removed when the user is deleted: an
 * id may be given to a new account later, which must find none of it. Kept workspaces and
 * snapshots (their volumes and images with them), the images labelled as theirs on every node
 * (their builds, and what a snapshot's removal left), stored credentials, idempotency keys (whose
 * stored answers would otherwise be replayed to the new account) and the history of their ended
 * runtimes. Audit entries stay: they are the record of what was done. A failure of the database
 * ends the deletion (the account stays, its keys refused, and the admin deletes again); a volume
 * or image its node will not remove now is logged and its record forgotten anyway (the
 * reconciler's sweep takes an unrecorded volume once nothing mounts it).
 */
@ApplicationScoped
public class UserRecords {

    private static final Logger LOG = Logger.getLogger(UserRecords.class.getName());

    @Inject
    Workspaces workspaces;

    @Inject
    Snapshots snapshots;

    @Inject
    WorkspaceRecords records;

    @Inject
    Credentials credentials;

    @Inject
    IdempotencyKeys idempotencyKeys;

    @Inject
    ProvisioningJournal journal;

    @Inject
    BackendNodes nodes;

    /** Removes what the class comment lists of {@code userId}'s; their live runtimes must be gone first. */
    public void forget(String userId) {
        for (KeptWorkspace workspace : workspaces.list(userId, false)) {
            try {
                workspaces.delete(workspace.id(), userId, false);
            } catch (Refused e) {
                LOG.warning("Kept workspace " + workspace.id() + " of deleted user " + userId + " is forgotten; its "
                        + "volume stays until the sweep takes it: " + e.getMessage());
                records.forget(workspace.id());
            }
        }
        for (Snapshot snapshot : snapshots.list(userId, false)) {
            try {
                snapshots.delete(snapshot.id(), userId, false);
            } catch (Refused e) {
                LOG.warning("Snapshot " + snapshot.id() + " of deleted user " + userId + " is forgotten; its image "
                        + snapshot.image() + " stays on node " + snapshot.node() + ": " + e.getMessage());
                records.forgetSnapshot(snapshot.id());
            }
        }
        for (StoredCredential credential : credentials.of(userId)) {
            credentials.delete(userId, credential.name());
        }
        for (String node : nodes.names()) {
            try {
                nodes.images(node).removeOwnedBy(userId);
            } catch (RuntimeException e) {
                LOG.warning("The images of deleted user " + userId + " on node " + node + " stay for now: "
                        + e.getMessage());
            }
        }
        idempotencyKeys.forgetUser(userId);
        journal.forgetEnded(userId);
    }
}
