package dev.dockyard.application.remote;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.BuildScriptPolicy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Images built from a client's own build context, as OpenHands' legacy {@code RemoteRuntimeBuilder}
 * asks ({@code /build}, then {@code /build_status} until it says SUCCESS or FAILURE). A build's
 * steps run as root like a build script, so {@code dockyard.images.scripts} decides who may
 * build; tags stay in Dockyard's image repository and never replace an image that exists (a
 * user must not swap the image under another user's runtimes).
 */
@ApplicationScoped
public class ContextBuilds {

    private static final Logger LOG = Logger.getLogger(ContextBuilds.class.getName());
    private static final int KEPT = 200;
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

    /** One build as {@code /build_status} reports it. */
    public static final class Build {
        private final String id;
        private final String userId;
        private final String image;
        private volatile String status = "WORKING";
        private volatile String error;

        Build(String id, String userId, String image) {
            this.id = id;
            this.userId = userId;
            this.image = image;
        }

        public String id() {
            return id;
        }

        public String image() {
            return image;
        }

        /** WORKING, SUCCESS or FAILURE: OpenHands' words. */
        public String status() {
            return status;
        }

        public String error() {
            return error;
        }
    }

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Resource
    ManagedExecutorService executor;

    private final Map<String, Build> builds = new LinkedHashMap<>();

    /**
     * Starts building {@code context} (a tar.gz this service now owns and deletes) as
     * {@code target} plus {@code tags}; returns at once.
     */
    public Build submit(String userId, boolean admin, Path context, String target, List<String> tags) {
        try {
            BuildScriptPolicy.fromConfig().refusalOfContextBuild(admin).ifPresent(reason -> {
                throw new Refused(Refused.Reason.FORBIDDEN, reason);
            });
            Set<String> names = new LinkedHashSet<>();
            names.add(checked(target));
            tags.forEach(t -> names.add(checked(t)));
            RuntimeImageBuilder builder = nodes.images(nodes.defaultNode());
            for (String name : names) {
                if (builder.imageExists(name)) {
                    throw new Refused(Refused.Reason.CONFLICT, "image " + name + " exists already: a "
                            + "build never replaces an image (GET /image_exists tells before building)");
                }
            }
            Build build = new Build("build-" + UUID.randomUUID(), userId, target);
            remember(build);
            executor.execute(() -> run(build, builder, context, names));
            return build;
        } catch (RuntimeException e) {
            delete(context);
            throw e;
        }
    }

    public Optional<Build> find(String userId, boolean admin, String id) {
        synchronized (builds) {
            return Optional.ofNullable(builds.get(id)).filter(b -> admin || b.userId.equals(userId));
        }
    }

    private void run(Build build, RuntimeImageBuilder builder, Path context, Set<String> names) {
        try {
            // the owner label overrides any the Dockerfile sets: the image is the builder's alone
            builder.buildArchive(context, names, Map.of(Labels.BASE_IMAGE, "build-context", Labels.OWNER,
                    build.userId), line -> { });
            build.status = "SUCCESS";
            LOG.info("Built " + names + " from a client's build context (" + build.id + ")");
        } catch (RuntimeException e) {
            build.error = e.getMessage();
            build.status = "FAILURE";
        } finally {
            delete(context);
        }
    }

    /**
     * What OpenHands' {@code /registry_prefix} answers: it names its runtime images
     * {@code {registry_prefix}/runtime:{tag}}, so Dockyard's image repository less a final
     * {@code /runtime} (or the repository itself, its builds then under {@code {repository}/runtime}).
     */
    public String registryPrefix() {
        String repository = config.imageRepository();
        return repository.endsWith("/runtime") ? repository.substring(0, repository.length() - "/runtime".length())
                : repository;
    }

    /** {@code {registry_prefix}/runtime:{tag}}: OpenHands' names, within Dockyard's repository. */
    private String checked(String name) {
        String prefix = registryPrefix() + "/runtime:";
        if (name == null || !name.startsWith(prefix) || !TAG.matcher(name.substring(prefix.length())).matches()) {
            throw new Refused(Refused.Reason.VALIDATION, "image names must be " + prefix + "<tag> (the repository "
                    + "GET /registry_prefix names, then /runtime): " + name);
        }
        return name;
    }

    private void remember(Build build) {
        synchronized (builds) {
            builds.put(build.id, build);
            if (builds.size() > KEPT) {
                builds.remove(builds.keySet().iterator().next());
            }
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temporary file
        }
    }
}
