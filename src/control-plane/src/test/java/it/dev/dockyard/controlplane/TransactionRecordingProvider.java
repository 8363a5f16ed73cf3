package it.dev.dockyard.controlplane;

import dev.dockyard.credentials.CredentialProvider;
import dev.dockyard.credentials.StoredCredential;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A credential provider (type {@code tx-recording}) standing in for a token endpoint: every
 * refresh hands out a token valid for one second and remembers whether a transaction was active
 * while it "called" the endpoint, which must never be the case.
 */
@ApplicationScoped
public class TransactionRecordingProvider implements CredentialProvider {

    private final List<Integer> statuses = new CopyOnWriteArrayList<>();

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Override
    public String type() {
        return "tx-recording";
    }

    /** The JTA status (jakarta.transaction.Status) of every refresh so far. */
    public List<Integer> statuses() {
        return List.copyOf(statuses);
    }

    public static boolean inTransaction(int status) {
        return status != Status.STATUS_NO_TRANSACTION;
    }

    /** Always due: every resolution takes the refresh lease in the database, as a real refresh does. */
    @Override
    public boolean needsRefresh(StoredCredential credential, Instant now, Duration window) {
        return true;
    }

    @Override
    public String resolve(StoredCredential credential, Instant now, Duration window) {
        statuses.add(transactions.getTransactionStatus());
        credential.refreshed("token-" + statuses.size(), now.plusSeconds(1), "refresh-" + statuses.size());
        return credential.value();
    }
}
