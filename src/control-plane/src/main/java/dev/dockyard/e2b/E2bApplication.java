package dev.dockyard.e2b;

import dev.dockyard.api.ApiKeyFilter;
import dev.dockyard.api.ProblemMappers;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.HashSet;
import java.util.Set;

/**
 * E2B's control API as a JAX-RS application of its own under {@code /e2b}: Dockyard's
 * authentication, input checks and problem answers, which {@link E2bErrors} turns into E2B's error
 * body on their way out.
 */
@ApplicationPath("/e2b")
public class E2bApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new HashSet<>(ProblemMappers.all());
        classes.add(ApiKeyFilter.class);
        classes.addAll(ProblemMappers.inputChecks());
        classes.add(E2bErrors.class);
        classes.add(SandboxResource.class);
        classes.add(SnapshotResource.class);
        return classes;
    }
}
