package dev.dockyard.runtimeapi;

import dev.dockyard.api.ApiKeyFilter;
import dev.dockyard.api.ProblemMappers;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.HashSet;
import java.util.Set;

/**
 * The Remote Runtime API's own JAX-RS application: its resources under {@code /runtime-api},
 * with Dockyard's authentication and problem answers (they carry OpenHands' {@code detail}).
 */
@ApplicationPath("/runtime-api")
public class RuntimeApiApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new HashSet<>(ProblemMappers.all());
        classes.add(ApiKeyFilter.class);
        classes.addAll(ProblemMappers.inputChecks());
        classes.add(RemoteRuntimeResource.class);
        return classes;
    }
}
