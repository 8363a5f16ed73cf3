package dev.dockyard.application.e2b;

import dev.dockyard.application.Refused;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.WarmPools;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.Snapshot;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * What E2B's {@code templateID} names in Dockyard, looked up in this order: a warm pool of that name
 * (the sandbox is claimed from it when it has one ready, with the pool's image, size and node), a
 * snapshot of the caller's (the sandbox boots on its files, on its node), an image the caller may
 * use on the default node (by name or tag), or {@code base}, Dockyard's default sandbox image
 * ({@code dockyard.sandbox.image}). Anything else is refused, 400: Dockyard pulls no
 * image and builds no template. Only Dockyard's executor serves envd, so a pool of another image's
 * program is no template.
 */
@ApplicationScoped
public class Templates {

    /** E2B's default template. */
    public static final String BASE = "base";

    @Inject
    WarmPools pools;

    @Inject
    ImageAccess images;

    @Inject
    Snapshots snapshots;

    @Inject
    DockyardConfig config;

    /**
     * How a sandbox of a template is provisioned.
     *
     * @param image          the image it runs
     * @param cpus           its CPUs
     * @param memoryMb       its memory
     * @param plugins        the executor plugins it starts (a pool's, so that its members match)
     * @param workspace      where it runs (a pool's node)
     * @param executorServer how its executor starts (a pool's), or null: its node's
     */
    public record Template(String image, double cpus, int memoryMb, List<String> plugins, WorkspaceRequest workspace,
                           ExecutorServer executorServer) {
    }

    /** The template {@code name} names for this caller, else refused (400). */
    public Template resolve(String name, String userId, Role role) {
        Optional<PoolDefinition> pool = pools.definition(name);
        if (pool.isPresent()) {
            PoolDefinition p = pool.get();
            if (p.program().isPresent()) {
                throw new Refused(Refused.Reason.VALIDATION, "template '" + name + "' is a pool of another image's "
                        + "program; E2B's sandboxes need Dockyard's executor");
            }
            return new Template(p.image(), p.cpus(), p.memoryMb(), p.plugins(),
                    new WorkspaceRequest(0, null, null, p.node(), null), p.executorServer().orElse(null));
        }
        Optional<Snapshot> snapshot = snapshot(name, userId, role);
        if (snapshot.isPresent()) {
            return new Template(snapshot.get().image(), config.sandboxCpus(), config.sandboxMemoryMb(), List.of(),
                    WorkspaceRequest.of(0, null, snapshot.get().id()), null);
        }
        String image = BASE.equals(name) ? config.sandboxImage() : name;
        if (images.usable(null, image, userId, role == Role.ADMIN).isEmpty()) {
            throw new Refused(Refused.Reason.VALIDATION, "template '" + name + "' is neither a warm pool nor an "
                    + "image you may use on the default node (Dockyard builds no templates and pulls no images; '"
                    + BASE + "' is " + config.sandboxImage() + ")");
        }
        return new Template(image, config.sandboxCpus(), config.sandboxMemoryMb(), List.of(), WorkspaceRequest.DEFAULT,
                null);
    }

    private Optional<Snapshot> snapshot(String name, String userId, Role role) {
        try {
            return Optional.of(snapshots.visible(name, userId, role == Role.ADMIN));
        } catch (Refused notTheirs) {
            return Optional.empty();
        }
    }
}
