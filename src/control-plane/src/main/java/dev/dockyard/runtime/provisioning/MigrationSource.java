package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeStatus;
import java.io.IOException;
import java.io.InputStream;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The runtime a migration copies its workspace from, held still while the migration lasts.
 *
 * <p>The copy is of one point in time: from the migrate call the migration holds the source's
 * gate (no new action, pause or resume; the running ones finished first), and the copy freezes
 * its sandbox before reading, so nothing written afterwards can be lost. The gate opens when the
 * migration settles; a migration that did not end READY thaws the sandbox first, and the old
 * runtime serves on. One per migration, made by {@link Migrations}, used by the cold boot of the
 * new runtime ({@link ColdProvisioning}) and told the outcome by {@link RuntimesInFlight}. Public
 * only because those beans' public methods name it (their CDI proxies must see it); nothing outside
 * the package makes or uses one.
 */
public final class MigrationSource {

    private static final Logger LOG = Logger.getLogger(MigrationSource.class.getName());

    /** Where the image keeps the agent's files (DOCKYARD_WORKSPACE): what a migration carries over. */
    private static final String WORKSPACE = "/workspace";

    private final String node;
    private final String sandboxName;
    private final BackendNodes nodes;
    private final RuntimeGates.Pass hold;

    /** @param hold the source's gate, held by the migration until it settles */
    MigrationSource(String node, String sandboxName, BackendNodes nodes, RuntimeGates.Pass hold) {
        this.node = node;
        this.sandboxName = sandboxName;
        this.nodes = nodes;
        this.hold = hold;
    }

    /** The node the workspace comes from. */
    String node() {
        return node;
    }

    /**
     * Freezes the old sandbox (it stays frozen until the migration settles: taken over, or thawed
     * if it fails) and streams its workspace into the new, created one (engine to engine, nothing
     * buffered here); owners and modes are kept. Returns the bytes carried.
     */
    long copyInto(RuntimeBackend target, String targetSandboxName) {
        nodes.on(node).pause(sandboxName);
        // the workspace's contents into the workspace itself, not through "/": a read-only root
        // refuses any unpacking outside its volumes
        try (InputStream archive = nodes.on(node).archive(sandboxName, WORKSPACE + "/.");
             CountingInputStream counted = new CountingInputStream(archive)) {
            target.restore(targetSandboxName, WORKSPACE, counted);
            return counted.count();
        } catch (IOException e) {
            throw new BackendException("the workspace archive broke off: " + e.getMessage(), e);
        }
    }

    /** The migration settled: a source it did not replace is thawed; either way its gate opens. */
    void settled(RuntimeStatus outcome) {
        if (outcome != RuntimeStatus.READY) {
            thawQuietly();
        }
        release();
    }

    /** The source's gate opens again: the migration settled, or was never registered. */
    void release() {
        hold.close();
    }

    private void thawQuietly() {
        try {
            nodes.on(node).unpause(sandboxName);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not thaw sandbox " + sandboxName + " after a failed migration", e);
        }
    }
}
