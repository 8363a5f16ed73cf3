package it.dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.application.remote.ProxyTargets;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The runtimes the proxy sees in the test server, set by the test through {@link ProxyTestControl},
 * and every traffic report the proxy made (and every runtime it found unanswered, as a report of
 * the service {@code unanswered}).
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 100)
@ApplicationScoped
public class FakeProxyTargets implements ProxyTargets {

    /** The runtime whose sandbox runs on, whatever its server does. */
    public static final String STILL_RUNNING = "rt-00000000000000c8";

    /** One traffic report. */
    public record Traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut) {
    }

    private final Map<String, ProxyTarget> targets = new ConcurrentHashMap<>();
    private final List<Traffic> traffic = new CopyOnWriteArrayList<>();

    void put(ProxyTarget target) {
        targets.put(target.runtimeId(), target);
    }

    List<Traffic> traffic() {
        return List.copyOf(traffic);
    }

    void clearTraffic() {
        traffic.clear();
    }

    @Override
    public Optional<ProxyTarget> find(String runtimeId) {
        return Optional.ofNullable(targets.get(runtimeId));
    }

    @Override
    public Optional<ProxyTarget> findByKey(Predicate<String> matches) {
        return targets.values().stream().filter(t -> matches.test(t.publicKey())).findFirst();
    }

    @Override
    public void traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut) {
        traffic.add(new Traffic(runtimeId, service, websocket, bytesIn, bytesOut));
    }

    /**
     * Recorded as a traffic report of no service, so that a test reads it as it reads the rest; the
     * test's sandboxes are no containers: each counts as stopped, being recovered, but
     * {@link #STILL_RUNNING}'s.
     */
    @Override
    public boolean unanswered(String runtimeId) {
        traffic.add(new Traffic(runtimeId, "unanswered", false, 0, 0));
        return !runtimeId.equals(STILL_RUNNING);
    }
}
