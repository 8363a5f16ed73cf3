package dev.dockyard.credentials;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;

/** A secret the user stored as is (an API key, a personal access token): valid while present. */
@ApplicationScoped
public class StoredSecretProvider implements CredentialProvider {

    @Override
    public String type() {
        return "secret";
    }

    @Override
    public String resolve(StoredCredential credential, Instant now, Duration window) {
        if (credential.value() == null || credential.value().isEmpty()) {
            throw new CredentialException("credential " + credential.name() + " has no value");
        }
        return credential.value();
    }
}
