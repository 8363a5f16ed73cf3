package dev.dockyard.credentials;

import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.SandboxConfigurations;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * While runtimes live, refreshes credentials that near expiry and pushes the fresh values into
 * every READY sandbox of their user (a non-persistent EJB timer, every ten seconds).
 */
@Singleton
public class CredentialRefresher {

    private static final Logger LOG = Logger.getLogger(CredentialRefresher.class.getName());

    @Inject
    Credentials credentials;

    @Inject
    ProvisioningJournal journal;

    @Inject
    SandboxConfigurations configurations;

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false, info = "dockyard-credential-refresh")
    void refresh() {
        for (String userId : credentials.usersNeedingRefresh()) {
            java.util.List<SandboxRuntime> ready = journal.live().stream()
                    .filter(r -> r.userId().equals(userId) && r.status() == RuntimeStatus.READY).toList();
            if (ready.isEmpty()) {
                continue; // nothing to keep fresh: the next provisioning refreshes before injecting
            }
            Map<String, String> values;
            try {
                values = credentials.resolveAll(userId);
            } catch (CredentialException e) {
                LOG.warning("Credentials of " + userId + " could not be refreshed: " + e.getMessage());
                continue;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Credentials of " + userId + " could not be refreshed", e);
                continue;
            }
            for (SandboxRuntime runtime : ready) {
                try {
                    configurations.push(URI.create(runtime.executorUrl()), runtime, values);
                } catch (RuntimeException e) {
                    LOG.warning("Fresh credentials could not be pushed into " + runtime.id() + ": " + e.getMessage());
                }
            }
        }
    }
}
