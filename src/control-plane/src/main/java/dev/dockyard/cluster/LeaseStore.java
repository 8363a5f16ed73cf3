package dev.dockyard.cluster;

import java.time.Instant;
import java.util.Optional;

/** Where leases are kept: each call is its own short transaction, atomic against other instances. */
public interface LeaseStore {

    /**
     * Takes or renews the lease for {@code holder} until {@code until}: succeeds when nobody holds
     * it, {@code holder} holds it already, or its holder let it expire before {@code now}.
     */
    boolean claim(String name, String holder, Instant now, Instant until);

    /** Gives the lease up if {@code holder} holds it, so another instance need not wait for it to expire. */
    void release(String name, String holder);

    /** The lease as stored, expired or not. */
    Optional<Lease> find(String name);

    /** Removes the leases whose name starts with {@code prefix} and that expired before {@code before}; how many. */
    int forgetExpired(String prefix, Instant before);
}
