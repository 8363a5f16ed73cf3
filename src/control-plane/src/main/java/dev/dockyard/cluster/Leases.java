package dev.dockyard.cluster;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This instance's view of the leases it holds. A job that must run once among the control planes
 * calls {@link #hold} before each pass and acts only when it is granted, and checks {@link #fresh}
 * before each step of a long pass: the lease is fresh until a safety margin (a third of its time
 * to live) before the expiry this instance wrote, measured on this instance's clock from before
 * the write. A holder that could not renew in time (a database outage, a long pause) therefore
 * stops acting before anyone else can take the lease over, so two holders never act at once (as
 * long as the instances' clocks differ by less than the margin).
 */
@ApplicationScoped
public class Leases {

    private static final Logger LOG = Logger.getLogger(Leases.class.getName());
    /** The reconciler's pass (runtime/reconciliation). */
    public static final String RECONCILER = "reconciler";
    /** The refresh of stored OAuth2 credentials. */
    public static final String CREDENTIAL_REFRESHER = "credential-refresher";
    /** Warm pools' refills and member checks. */
    public static final String POOL_KEEPER = "pool-keeper";
    /** The idle, TTL and hibernation sweep. */
    public static final String IDLE_LIFECYCLE = "idle-lifecycle";
    private static final String HEARTBEAT_PREFIX = "instance:";

    /** How long a dead process's heartbeat is kept: its work is taken over long before. */
    private static final Duration KEEP_DEAD_HEARTBEATS = Duration.ofDays(1);
    private static final Duration SWEEP_EVERY = Duration.ofHours(1);

    private final Map<String, Instant> freshUntil = new ConcurrentHashMap<>();
    private volatile Instant nextSweep = Instant.MIN;

    @Inject
    LeaseStore store;

    @Inject
    Clock clock;

    @Inject
    ControlPlaneInstance instance;

    public Leases() {
    }

    /** For tests: the store, clock and instance a container would inject. */
    public Leases(LeaseStore store, Clock clock, ControlPlaneInstance instance) {
        this.store = store;
        this.clock = clock;
        this.instance = instance;
    }

    /** Takes or renews the lease; true when this instance holds it, fresh, now. */
    public boolean hold(String name) {
        Instant now = clock.instant();
        Duration ttl = instance.leaseTtl();
        boolean held;
        try {
            held = store.claim(name, instance.id(), now, now.plus(ttl));
        } catch (RuntimeException e) {
            // another instance inserted the row first, or the database is out of reach: not ours now
            LOG.log(Level.FINE, "Lease " + name + " not claimed: " + e);
            held = false;
        }
        if (held) {
            Instant previous = freshUntil.put(name, now.plus(ttl.minus(ttl.dividedBy(3))));
            if (previous == null || previous.isBefore(now)) {
                LOG.info("Instance " + instance.id() + " holds the lease '" + name + "' now");
            }
        } else if (freshUntil.remove(name) != null) {
            LOG.info("Instance " + instance.id() + " lost the lease '" + name + "'");
        }
        return held && fresh(name);
    }

    /** Whether this instance may still act on the lease it was granted. */
    public boolean fresh(String name) {
        Instant until = freshUntil.get(name);
        return until != null && clock.instant().isBefore(until);
    }

    /** Gives up every lease held, e.g. when the server stops, so that another instance takes over at once. */
    public void releaseAll() {
        for (String name : freshUntil.keySet()) {
            try {
                store.release(name, instance.id());
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "Lease " + name + " not released: " + e);
            }
        }
        freshUntil.clear();
    }

    /**
     * Renews this instance's heartbeat (the lease other instances check before taking its work
     * over) and every lease it holds: a job's own schedule may be slower than the lease's time to
     * live allows, and a holder that is alive keeps what it holds.
     */
    public boolean heartbeat() {
        for (String name : freshUntil.keySet()) {
            if (!name.startsWith(HEARTBEAT_PREFIX)) {
                hold(name);
            }
        }
        boolean alive = hold(HEARTBEAT_PREFIX + instance.process());
        Instant now = clock.instant();
        if (alive && now.isAfter(nextSweep)) {
            // a process killed leaves its heartbeat behind (a clean stop releases it): gone a day later
            nextSweep = now.plus(SWEEP_EVERY);
            try {
                store.forgetExpired(HEARTBEAT_PREFIX, now.minus(KEEP_DEAD_HEARTBEATS));
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "Expired heartbeats not swept: " + e);
            }
        }
        return alive;
    }

    /**
     * Whether the process {@code process} (a {@link #me()} it recorded on its work) is alive: its
     * heartbeat has not expired. Unknown processes (never seen, or whose heartbeat was released at
     * shutdown) are not alive, and neither is an earlier start of this very instance, whatever its
     * heartbeat says: it was killed and this process is its restart.
     */
    public boolean alive(String process) {
        if (instance.process().equals(process)) {
            return true;
        }
        if (instance.earlierSelf(process)) {
            return false;
        }
        try {
            return store.find(HEARTBEAT_PREFIX + process).map(l -> l.expiresAt().isAfter(clock.instant())).orElse(false);
        } catch (RuntimeException e) {
            // cannot tell: treat as alive, so its work is not taken over on a guess
            return true;
        }
    }

    /** This process, as it names itself on the work it has under way ({@link ControlPlaneInstance#process()}). */
    public String me() {
        return instance.process();
    }

    /** This process's instance id, the holder of its leases. */
    public String instanceId() {
        return instance.id();
    }
}
