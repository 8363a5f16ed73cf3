package dev.dockyard.executor.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * PROTOCOL.md's paths sit at the root, as in OpenHands, and E2B's envd routes beside them. The resources are singletons sharing one
 * {@link ExecutorLifecycle}, started when the application is: no CDI needed, which keeps the
 * sandbox's boot short.
 */
@ApplicationPath("/")
public class ExecutorApplication extends Application {

    @Override
    public Set<Object> getSingletons() {
        ExecutorLifecycle lifecycle = ExecutorLifecycle.instance();
        return Set.of(new SessionKeyFilter(lifecycle), new HealthResource(lifecycle), new ActionResource(lifecycle),
                new FileTransferResource(lifecycle), new ConfigureResource(lifecycle), new EnvdResource(lifecycle));
    }
}
