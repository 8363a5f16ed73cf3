package dev.dockyard.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.HashSet;
import java.util.Set;

/**
 * Dockyard's own API under {@code /api/v1}. Its classes are listed, not scanned: the WAR holds a
 * second application ({@code dev.dockyard.runtimeapi}), and scanning would put each one's
 * resources under both paths.
 */
@ApplicationPath("/api/v1")
public class DockyardApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new HashSet<>(ProblemMappers.all());
        classes.add(ApiKeyFilter.class);
        classes.addAll(ProblemMappers.inputChecks());
        classes.add(AuditResource.class);
        classes.add(CredentialResource.class);
        classes.add(ImageResource.class);
        classes.add(NodeResource.class);
        classes.add(PoolResource.class);
        classes.add(RuntimeResource.class);
        classes.add(RuntimeForkResource.class);
        classes.add(RuntimeProcessResource.class);
        classes.add(RuntimeSnapshotResource.class);
        classes.add(SnapshotResource.class);
        classes.add(UserResource.class);
        classes.add(WorkspaceResource.class);
        return classes;
    }
}
