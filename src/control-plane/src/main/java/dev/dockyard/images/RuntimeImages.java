package dev.dockyard.images;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.BuildContext;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.observability.DockyardMetrics;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Turns any base image into a runtime image and never builds what it already has.
 *
 * <p>An image labelled {@link Labels#RUNTIME_IMAGE} runs as it is. Any other image is a base: its
 * three tags ({@link RuntimeImageTags}) are computed from the base, the executor bundle and the
 * extra dependencies, and the reuse chain ({@link ReuseChain}) decides — source tag present:
 * nothing to build; lock tag present: build on it, adding only the bundle; clean versioned tag
 * present: build on it; else build on the base. A build applies the source and lock tags, and the
 * versioned tag only when it has no extra dependencies, so that no build ever starts from what
 * another user's extra dependencies put into an image. Concurrent requests for the same image on
 * the same node share one build.
 */
@ApplicationScoped
public class RuntimeImages {

    private static final Logger LOG = Logger.getLogger(RuntimeImages.class.getName());
    private static final int KEPT_BUILDS = 200;

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Resource
    ManagedExecutorService executor;

    /** Builds running now, by node and source tag: the second request for one joins the first. */
    private final Map<String, ImageBuild> running = new ConcurrentHashMap<>();
    /** Recent builds by id, for the API; the oldest fall out. */
    private final Map<String, ImageBuild> recent = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, ImageBuild> eldest) {
                    return size() > KEPT_BUILDS;
                }
            });
    private volatile String bundleStamp;
    private volatile ExecutorBundle bundle;

    /** What a requested image resolved to: the image to run, and the build it took, if any. */
    public record Resolution(String image, ImageBuild build) {
    }

    /**
     * The image a sandbox on {@code node} runs for the requested {@code image}: the image itself
     * if it is a runtime image, else its runtime image, built first if need be (blocking; a build
     * starting is announced to {@code onBuild} before it is waited for).
     *
     * @throws ImageBuildException when the image is missing or its build fails
     */
    public Resolution resolve(String node, String image, ExtraDependencies extra, Consumer<ImageBuild> onBuild) {
        RuntimeImageBuilder builder = nodes.images(node);
        RuntimeImageBuilder.ImageInfo info = builder.inspect(image).orElseThrow(() -> new ImageBuildException(
                "image '" + image + "' not found on node '" + nodes.named(node) + "' (images are never pulled)"));
        if ("true".equals(info.labels().get(Labels.RUNTIME_IMAGE)) && extra.isEmpty()) {
            return new Resolution(image, null);
        }
        RuntimeImageTags tags = tags(image, extra);
        String source = tags.image(tags.source());
        if (ReuseChain.holds(builder::inspect, source, tags.extraDeps())) {
            return new Resolution(source, null);
        }
        ImageBuild build = submit(node, image, extra, false);
        onBuild.accept(build);
        try {
            return new Resolution(build.image().get(config.imageBuildTimeout().toSeconds(), TimeUnit.SECONDS), build);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof ImageBuildException ibe ? ibe
                    : new ImageBuildException("the image build failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new ImageBuildException("the image build took longer than " + config.imageBuildTimeout().toSeconds()
                    + " s (dockyard.images.build-timeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImageBuildException("interrupted while waiting for the image build");
        }
    }

    /**
     * The runtime image a sandbox of {@code image} would run now, if it exists, without building
     * anything: the image itself when it is a runtime image, else its runtime image of today's
     * executor bundle (a new bundle means a new source tag, which does not exist until built).
     */
    public Optional<RuntimeImageBuilder.ImageInfo> current(String node, String image) {
        RuntimeImageBuilder builder = nodes.images(node);
        Optional<RuntimeImageBuilder.ImageInfo> info = builder.inspect(image);
        if (info.isEmpty() || "true".equals(info.get().labels().get(Labels.RUNTIME_IMAGE))) {
            return info;
        }
        RuntimeImageTags tags = tags(image, ExtraDependencies.NONE);
        return builder.inspect(tags.image(tags.source()));
    }

    /**
     * Starts building the runtime image of {@code baseImage} on {@code node} (or joins the build
     * already running for it) and returns at once. {@code force} builds from the base whatever
     * exists. A build whose source tag exists completes at once as {@link ImageBuild.Path#CACHED}.
     *
     * @throws ImageBuildException when the base image is missing or the bundle unreadable
     */
    public ImageBuild submit(String node, String baseImage, ExtraDependencies extra, boolean force) {
        RuntimeDockerfile.requireValid(extra);
        String nodeName = nodes.named(node);
        RuntimeImageBuilder builder = nodes.images(nodeName);
        if (!builder.imageExists(baseImage)) {
            throw new ImageBuildException("base image '" + baseImage + "' not found on node '" + nodeName
                    + "' (images are never pulled: load or build it there first)");
        }
        ExecutorBundle using = currentBundle();
        RuntimeImageTags tags = tags(baseImage, extra, using);
        String key = nodeName + "|" + tags.source() + (force ? "|force" : "");
        ImageBuild[] created = new ImageBuild[1];
        ImageBuild build = running.computeIfAbsent(key, k -> {
            created[0] = new ImageBuild("build-" + UUID.randomUUID().toString().substring(0, 13), nodeName, baseImage,
                    tags, clock.instant());
            return created[0];
        });
        if (created[0] == null) {
            return build;
        }
        recent.put(build.id(), build);
        executor.execute(() -> {
            try {
                run(build, builder, using, extra, force);
                build.succeeded(clock.instant());
            } catch (RuntimeException e) {
                build.failed(clock.instant(), e instanceof ImageBuildException ? e
                        : new ImageBuildException("the image build failed: " + e, e));
            } finally {
                running.remove(key);
            }
        });
        return build;
    }

    private void run(ImageBuild build, RuntimeImageBuilder builder, ExecutorBundle using, ExtraDependencies extra,
                     boolean force) {
        RuntimeImageTags tags = build.tags();
        ReuseChain.Plan plan = ReuseChain.plan(tags, build.baseImage(), extra, force, builder::inspect);
        build.took(plan.path());
        metrics.imageBuild(plan.path());
        if (plan.path() == ImageBuild.Path.CACHED) {
            return;
        }
        String source = tags.image(tags.source());
        String dockerfile = RuntimeDockerfile.render(plan.from(), plan.install(), config.sandboxUid(),
                trainedFor(build.node()));
        long started = System.nanoTime();
        LOG.info("Building runtime image " + source + " on node '" + build.node() + "' from " + plan.from() + " (path "
                + plan.path() + ")");
        builder.build(new BuildContext(dockerfile, using.dir(), force), plan.applies(),
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.BASE_IMAGE, build.baseImage(),
                        RuntimeImageTags.EXTRA_DEPS_LABEL, tags.extraDeps()), build::output);
        LOG.info("Built runtime image " + source + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
    }

    /**
     * The executor servers a runtime image built for {@code node} carries a class archive of: the
     * default one and the node's. A sandbox that asks for the other (a request's or a pool's
     * {@code executorServer}) boots on it without an archive; training Liberty's costs ~12 s and
     * ~20 CPU-s of every build, for a mode most nodes never start.
     */
    Set<ExecutorServer> trainedFor(String node) {
        return EnumSet.of(ExecutorServer.DEFAULT, nodes.executorServer(node));
    }

    /** The tags of a base's runtime image with the bundle as it is on disk now. */
    public RuntimeImageTags tags(String baseImage, ExtraDependencies extra) {
        return tags(baseImage, extra, currentBundle());
    }

    private RuntimeImageTags tags(String baseImage, ExtraDependencies extra, ExecutorBundle current) {
        return RuntimeImageTags.of(config.imageRepository(), config.version(), baseImage, current.dependencyLock(),
                current.libertyVersion(), extra, current.contentHash());
    }

    /** The bundle, hashed again only when its files changed (a cheap stamp decides). */
    private synchronized ExecutorBundle currentBundle() {
        Path dir = config.imageBundle();
        String stamp = ExecutorBundle.stamp(dir);
        if (bundle == null || !stamp.equals(bundleStamp) || !bundle.dir().equals(dir)) {
            bundle = ExecutorBundle.read(dir);
            bundleStamp = stamp;
        }
        return bundle;
    }

    public Optional<ImageBuild> build(String id) {
        return Optional.ofNullable(recent.get(id));
    }

    /** The runtime images on a node (the configured repository). */
    public List<RuntimeImageBuilder.ImageInfo> list(String node) {
        return nodes.images(nodes.named(node)).list(config.imageRepository());
    }

    public Optional<RuntimeImageBuilder.ImageInfo> inspect(String node, String image) {
        return nodes.images(nodes.named(node)).inspect(image);
    }
}
