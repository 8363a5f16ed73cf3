package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.credentials.CredentialException;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.SandboxConfigurations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Keeps the credentials inside running sandboxes valid: each pass renews the credentials that
 * near expiry of every user with a READY runtime and pushes the values into those runtimes. It
 * runs with no transaction (token endpoints and executors are called; what is stored is stored
 * per credential by {@link Credentials}). A credential that cannot be renewed keeps its last
 * value in the sandboxes, so one broken credential never takes the others' fresh values away.
 */
@ApplicationScoped
public class CredentialRenewal {

    private static final Logger LOG = Logger.getLogger(CredentialRenewal.class.getName());

    @Inject
    Credentials credentials;

    @Inject
    ProvisioningJournal journal;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    DockyardConfig config;

    @Inject
    BackendNodes nodes;

    /** One pass; the number of sandboxes that received fresh values. */
    public int renewExpiring() {
        int pushed = 0;
        for (String userId : credentials.usersNeedingRefresh()) {
            // this control plane's runtimes of Dockyard's executor: an image's own program gets no
            // Dockyard configuration (and the user's tokens never go to it)
            List<SandboxRuntime> ready = journal.live().stream()
                    .filter(r -> r.userId().equals(userId) && r.status() == RuntimeStatus.READY
                            && r.isOwnedBy(config.instance()) && r.program().isEmpty()).toList();
            if (ready.isEmpty()) {
                continue; // nothing to keep fresh: the next provisioning refreshes before injecting
            }
            try {
                pushed += renew(userId, ready);
            } catch (RuntimeException e) {
                // one user's trouble (a database hiccup) never stops the others' renewal
                LOG.warning("Credentials of " + userId + " could not be renewed: " + e);
            }
        }
        return pushed;
    }

    private int renew(String userId, List<SandboxRuntime> ready) {
        int pushed = 0;
        Credentials.Resolution resolution = credentials.resolve(userId);
        for (CredentialException failure : resolution.failures()) {
            LOG.warning("A credential of " + userId + " could not be renewed: " + failure.getMessage());
        }
        Map<String, String> values = new LinkedHashMap<>(resolution.stale());
        values.putAll(resolution.values());
        for (SandboxRuntime runtime : ready) {
            try {
                URI executor = URI.create(runtime.executorUrl());
                // the values and the session key go only to the sandbox's own executor
                if (!nodes.on(runtime.node()).listensAt(runtime.containerName(), executor)) {
                    throw new BackendException("its executor does not serve at " + executor + " now (its sandbox "
                            + "stopped, or is frozen)");
                }
                configurations.push(executor, runtime, values);
                pushed++;
            } catch (RuntimeException e) {
                LOG.warning("Fresh credentials could not be pushed into " + runtime.id() + ": " + e.getMessage());
            }
        }
        return pushed;
    }
}
