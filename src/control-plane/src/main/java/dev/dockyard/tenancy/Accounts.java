package dev.dockyard.tenancy;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Users, their keys and their quotas; their rows are kept through the port {@link AccountStore}. */
@ApplicationScoped
public class Accounts {

    @Inject
    AccountStore store;

    @Inject
    Clock clock;

    @Inject
    DockyardConfig config;

    /** Users whose row this control plane has read back committed: {@link #ensure} needs no look-up for them. */
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    /** A caller established from an API key. */
    public record Principal(String userId, Role role) {
    }

    /** The user a key belongs to, or empty for an unknown key. */
    public Optional<Principal> byKey(String key) {
        return store.key(ApiKeyRecord.hash(key)).flatMap(record -> store.find(record.userId()))
                .map(account -> new Principal(account.userId(), account.role()));
    }

    /**
     * The bootstrap admin's user id (the caller of {@code dockyard.bootstrap.admin-key}): reserved,
     * never created nor deleted through the API, so no account can become that caller.
     */
    public static final String BOOTSTRAP_ADMIN = "admin";

    /**
     * Creates the user with a first key, returned (shown) once; empty when the id is taken: an
     * existing user's role and keys are not changed here (their key is rotated by {@link #rotateKey}).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<String> create(String userId, Role role) {
        if (store.lock(userId).isPresent()) {
            return Optional.empty();
        }
        store.add(new UserAccount(userId, role, clock.instant()));
        String key = ApiKeyRecord.newKey();
        store.add(new ApiKeyRecord(ApiKeyRecord.hash(key), userId, clock.instant()));
        // a parallel create of the same id fails here, on the primary key, not at the commit
        store.flush();
        return Optional.of(key);
    }

    /**
     * Makes sure the user has a row (the bootstrap admin has none until first used). Its own
     * transaction: when parallel first requests race to create it, the losers' unique-key failure
     * ends here, and the caller simply goes on (the row exists either way).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void ensure(String userId, Role role) {
        if (known.contains(userId)) {
            return;
        }
        if (store.find(userId).isEmpty()) {
            store.add(new UserAccount(userId, role, clock.instant()));
            store.flush();
            // not remembered yet: this transaction may still fail to commit, and a user taken for
            // known without a row would have every registration refused until a restart
            return;
        }
        known.add(userId);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<UserAccount> setQuota(String userId, Integer runtimes, Double cpus, Integer memoryMb) {
        Optional<UserAccount> account = store.lock(userId);
        account.ifPresent(a -> a.quota(runtimes, cpus, memoryMb));
        return account;
    }

    /** Per-user snapshot limits (null: the default), set with the other overrides of a quota update. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<UserAccount> setSnapshotQuota(String userId, Integer snapshots, Integer snapshotMb) {
        Optional<UserAccount> account = store.lock(userId);
        account.ifPresent(a -> a.snapshotQuota(snapshots, snapshotMb));
        return account;
    }

    /**
     * Replaces every key of the user with one new key, returned (shown) once; their old keys are
     * refused from the commit on. Empty for an unknown user.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<String> rotateKey(String userId) {
        return rotateKey(userId, KeyKind.DOCKYARD);
    }

    /** As {@link #rotateKey(String)}, the new key written as {@code kind} writes it (E2B's SDKs check theirs). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<String> rotateKey(String userId, KeyKind kind) {
        if (store.lock(userId).isEmpty()) {
            return Optional.empty();
        }
        store.removeKeys(userId);
        String key = ApiKeyRecord.newKey(kind);
        store.add(new ApiKeyRecord(ApiKeyRecord.hash(key), userId, clock.instant()));
        return Optional.of(key);
    }

    /** Refuses every key of the user from the commit on; false for an unknown user. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean revokeKeys(String userId) {
        if (store.lock(userId).isEmpty()) {
            return false;
        }
        store.removeKeys(userId);
        return true;
    }

    /** Removes the user and their keys; false for an unknown user. Their runtimes must be ended first. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean delete(String userId) {
        Optional<UserAccount> account = store.lock(userId);
        if (account.isEmpty()) {
            return false;
        }
        store.removeKeys(userId);
        store.remove(account.get());
        known.remove(userId);
        return true;
    }

    /** Every user, by id. */
    public List<UserAccount> all() {
        return store.all();
    }

    public Optional<UserAccount> find(String userId) {
        return store.find(userId);
    }

    /**
     * Within the caller's transaction: locks the user's row (see {@link #ensure}) and counts what
     * their live runtimes use; {@link Allowance#take} then checks that one more runtime fits every
     * limit, for one runtime or several in a row under the one lock (a batch of registrations).
     * The live runtimes are the ledger: counted under the same lock new ones are added under, and
     * released by every terminal status.
     */
    public Allowance allowance(String userId) {
        UserAccount account = store.lock(userId).orElseThrow(
                () -> new IllegalStateException("no account row for " + userId + ": call ensure() first"));
        AccountStore.LiveUse use = store.liveUse(userId);
        return new Allowance(
                account.maxRuntimes() != null ? account.maxRuntimes() : config.quotaMaxRuntimes(),
                account.maxCpus() != null ? account.maxCpus() : config.quotaMaxCpus(),
                account.maxMemoryMb() != null ? account.maxMemoryMb() : config.quotaMaxMemoryMb(),
                use.runtimes(), use.cpus(), use.memoryMb());
    }

    /** What a user may still start, counted under their row lock; {@link #take} spends it. */
    public static class Allowance {
        private final int maxRuntimes;
        private final double maxCpus;
        private final int maxMemory;
        private long runtimes;
        private double usedCpus;
        private long usedMemory;

        public Allowance(int maxRuntimes, double maxCpus, int maxMemory, long runtimes, double usedCpus, long usedMemory) {
            this.maxRuntimes = maxRuntimes;
            this.maxCpus = maxCpus;
            this.maxMemory = maxMemory;
            this.runtimes = runtimes;
            this.usedCpus = usedCpus;
            this.usedMemory = usedMemory;
        }

        /** Counts one more runtime of this size, or refuses it naming the first limit it would pass. */
        public void take(double cpus, int memoryMb) {
            if (runtimes + 1 > maxRuntimes) {
                throw new QuotaExceededException("maxRuntimes", maxRuntimes, runtimes, 1);
            }
            if (usedCpus + cpus > maxCpus + 1e-9) {
                throw new QuotaExceededException("maxCpus", maxCpus, usedCpus, cpus);
            }
            if (usedMemory + memoryMb > maxMemory) {
                throw new QuotaExceededException("maxMemoryMb", maxMemory, usedMemory, memoryMb);
            }
            runtimes++;
            usedCpus += cpus;
            usedMemory += memoryMb;
        }

        /** A runtime taken but not registered after all (its conversation was busy, its claim lost). */
        public void giveBack(double cpus, int memoryMb) {
            runtimes--;
            usedCpus -= cpus;
            usedMemory -= memoryMb;
        }
    }
}
