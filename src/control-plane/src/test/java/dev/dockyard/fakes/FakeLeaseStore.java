package dev.dockyard.fakes;

import dev.dockyard.cluster.Lease;
import dev.dockyard.cluster.LeaseStore;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Leases in memory with the database store's rules: renew your own, take a free or expired one. */
public class FakeLeaseStore implements LeaseStore {

    private final Map<String, Lease> leases = new HashMap<>();
    private boolean down;

    /** From now on every call fails, as when the database is out of reach. */
    public synchronized void goDown(boolean down) {
        this.down = down;
    }

    @Override
    public synchronized boolean claim(String name, String holder, Instant now, Instant until) {
        failIfDown();
        Lease current = leases.get(name);
        if (current != null && current.holder().equals(holder)) {
            leases.put(name, new Lease(name, holder, current.acquiredAt(), until));
            return true;
        }
        if (current == null || current.expiresAt().isBefore(now)) {
            leases.put(name, new Lease(name, holder, now, until));
            return true;
        }
        return false;
    }

    @Override
    public synchronized void release(String name, String holder) {
        failIfDown();
        Lease current = leases.get(name);
        if (current != null && current.holder().equals(holder)) {
            leases.remove(name);
        }
    }

    @Override
    public synchronized Optional<Lease> find(String name) {
        failIfDown();
        return Optional.ofNullable(leases.get(name));
    }

    @Override
    public synchronized int forgetExpired(String prefix, Instant before) {
        failIfDown();
        int before0 = leases.size();
        leases.values().removeIf(l -> l.name().startsWith(prefix) && l.expiresAt().isBefore(before));
        return before0 - leases.size();
    }

    private void failIfDown() {
        if (down) {
            throw new IllegalStateException("the database is out of reach");
        }
    }
}
