package dev.dockyard.application.remote;

import dev.dockyard.audit.AuditEntry;
import dev.dockyard.audit.AuditTrail;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The audit of traffic through the proxy, by count and bytes: one audit entry per runtime and
 * service for every window (a minute) that saw traffic, not one per request — an agent server's
 * clients poll, and VS Code makes hundreds of requests a page.
 */
@ApplicationScoped
public class ProxyTraffic {

    static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Logger LOG = Logger.getLogger(ProxyTraffic.class.getName());

    @Inject
    AuditTrail audit;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    Clock clock;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private final AtomicReference<Map<String, Counts>> open = new AtomicReference<>(new ConcurrentHashMap<>());
    private ScheduledFuture<?> flushing;

    /** What one runtime's service saw since the window opened. */
    static final class Counts {
        final String runtimeId;
        final String service;
        final Instant since;
        final LongAdder requests = new LongAdder();
        final LongAdder websockets = new LongAdder();
        final LongAdder bytesIn = new LongAdder();
        final LongAdder bytesOut = new LongAdder();

        Counts(String runtimeId, String service, Instant since) {
            this.runtimeId = runtimeId;
            this.service = service;
            this.since = since;
        }
    }

    @PostConstruct
    void start() {
        flushing = scheduler.scheduleAtFixedRate(this::flush, WINDOW.toMillis(), WINDOW.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        if (flushing != null) {
            flushing.cancel(false);
        }
        try {
            flush();
        } catch (RuntimeException e) {
            // shutting down: the audit trail may be gone already
        }
    }

    public void count(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut) {
        Counts counts = open.get().computeIfAbsent(runtimeId + " " + service,
                k -> new Counts(runtimeId, service, clock.instant()));
        (websocket ? counts.websockets : counts.requests).increment();
        counts.bytesIn.add(bytesIn);
        counts.bytesOut.add(bytesOut);
    }

    /** Closes every open window into an audit entry. */
    void flush() {
        Map<String, Counts> closed = open.getAndSet(new ConcurrentHashMap<>());
        Instant now = clock.instant();
        for (Counts counts : closed.values()) {
            try {
                record(counts, now);
            } catch (RuntimeException e) {
                // a database hiccup costs this window's entry, never the flushing of later ones
                LOG.log(Level.WARNING, "Could not audit the proxy traffic of " + counts.runtimeId, e);
            }
        }
    }

    private void record(Counts counts, Instant now) {
        Optional<SandboxRuntime> runtime = runtimes.find(counts.runtimeId);
        String userId = runtime.map(SandboxRuntime::userId).orElse("unknown");
        audit.record(new AuditEntry(now, userId, counts.runtimeId, "proxy:" + counts.service, "NONE",
                counts.requests.sum() + " requests, " + counts.websockets.sum() + " websocket sessions, "
                        + counts.bytesIn.sum() + " bytes in, " + counts.bytesOut.sum() + " bytes out",
                AuditEntry.Decision.ALLOWED, 200, null, Duration.between(counts.since, now).toMillis(),
                counts.bytesOut.sum()));
    }
}
