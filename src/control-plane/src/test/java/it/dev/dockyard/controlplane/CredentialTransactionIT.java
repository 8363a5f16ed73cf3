package it.dev.dockyard.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.credentials.Credentials;
import dev.dockyard.credentials.StoredCredential;
import jakarta.inject.Inject;
import java.io.File;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * In a real Liberty with the real store: a credential's token call runs with no transaction
 * active (a transaction held across someone else's endpoint would keep row locks for its whole
 * round trip and roll back a rotation it already made), and each refresh is stored at once.
 */
@ExtendWith(ArquillianExtension.class)
class CredentialTransactionIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.create(ZipImporter.class, "dockyard.war").importFrom(new File("target/dockyard.war"))
                .as(WebArchive.class).addClasses(CredentialTransactionIT.class, TransactionRecordingProvider.class,
                        TransactionRecordingNodes.class);
    }

    @Inject
    Credentials credentials;

    @Inject
    TransactionRecordingProvider provider;

    @Test
    void shouldCallTheTokenEndpointWithNoTransactionActiveAndStoreEachRefresh() {
        String user = "tx-user-" + System.nanoTime();
        StoredCredential credential = new StoredCredential(user, "RECORDED", "tx-recording");
        credentials.store(credential);
        Map<String, String> first = credentials.resolveAll(user);
        Map<String, String> second = credentials.resolveAll(user);

        List<Integer> statuses = provider.statuses();
        assertTrue(statuses.size() >= 3, "stored, then refreshed twice: " + statuses);
        assertFalse(statuses.stream().anyMatch(TransactionRecordingProvider::inTransaction),
                "token calls made inside a transaction (JTA statuses " + statuses + ")");
        assertFalse(first.equals(second), "every resolution within the window refreshed: " + first + " " + second);
        StoredCredential stored = credentials.of(user).get(0);
        assertEquals(second.get("RECORDED"), stored.value(), "the last refresh is what is stored");
        credentials.delete(user, "RECORDED");
    }
}
