package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.BuildImageResultCallback;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.DockerClientException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.BuildResponseItem;
import com.github.dockerjava.api.model.Image;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.BuildContext;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Runtime image builds on one Docker engine (the classic builder through the API): the context
 * is a tar of the Dockerfile and the bundle as {@code dockyard/}, written to a temporary file
 * first, so that the engine reads it at its own pace; never pulls.
 */
public class DockerImageBuilder implements RuntimeImageBuilder {

    private static final Logger LOG = Logger.getLogger(DockerImageBuilder.class.getName());

    private static final int LOG_TAIL = 40;
    private static final long BUILD_TIMEOUT_MINUTES = 30;
    private static final long BUILD_MEMORY_BYTES = 4L * 1024 * 1024 * 1024;

    private final DockerClient docker;

    public DockerImageBuilder(DockerClient docker) {
        this.docker = docker;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        try {
            InspectImageResponse inspect = docker.inspectImageCmd(image).exec();
            Map<String, String> labels = inspect.getConfig() == null || inspect.getConfig().getLabels() == null
                    ? Map.of() : inspect.getConfig().getLabels();
            return Optional.of(new ImageInfo(inspect.getId(),
                    inspect.getRepoTags() == null ? Set.of() : Set.copyOf(inspect.getRepoTags()),
                    inspect.getSize() == null ? 0 : inspect.getSize(), labels,
                    inspect.getRepoDigests() == null ? Set.of() : Set.copyOf(inspect.getRepoDigests())));
        } catch (NotFoundException e) {
            return Optional.empty();
        } catch (EngineUnreachableException e) {
            throw e;
        } catch (RuntimeException e) {
            // an engine that answered with an error: the node is unavailable, not the image absent
            throw new BackendException("the engine could not be asked for image " + image + ": " + e.getMessage(), e);
        }
    }

    @Override
    public int removeOwnedBy(String userId) {
        int removed = 0;
        for (Image image : docker.listImagesCmd().withShowAll(true)
                .withLabelFilter(Map.of(Labels.OWNER, userId)).exec()) {
            try {
                docker.removeImageCmd(image.getId()).withForce(true).exec();
                removed++;
            } catch (NotFoundException gone) {
                // removed meanwhile
            } catch (RuntimeException e) {
                // a container still runs it: said, since a later account of this id would own it
                LOG.warning("Could not remove image " + image.getId() + " of deleted user " + userId + ": "
                        + e.getMessage());
            }
        }
        return removed;
    }

    @Override
    public List<ImageInfo> list(String repository) {
        // filtered here: the engine's own name filter is deprecated and matches loosely
        String prefix = repository + ":";
        return docker.listImagesCmd().exec().stream()
                .filter(i -> i.getRepoTags() != null && Stream.of(i.getRepoTags()).anyMatch(t -> t.startsWith(prefix)))
                .map(DockerImageBuilder::info).toList();
    }

    private static ImageInfo info(Image image) {
        return new ImageInfo(image.getId(), image.getRepoTags() == null ? Set.of() : Set.of(image.getRepoTags()),
                image.getSize() == null ? 0 : image.getSize(), image.getLabels() == null ? Map.of() : image.getLabels());
    }

    @Override
    public String build(BuildContext context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        Path tar = null;
        try {
            tar = Files.createTempFile("dockyard-build-", ".tar");
            writeContext(context, tar);
            return buildTar(tar, tags, labels, context.noCache(), progress);
        } catch (IOException e) {
            throw new ImageBuildException("could not prepare the build context: " + e.getMessage(), e);
        } finally {
            deleteQuietly(tar);
        }
    }

    @Override
    public String buildArchive(Path context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        return buildTar(context, tags, labels, false, progress);
    }

    private String buildTar(Path tar, Set<String> tags, Map<String, String> labels, boolean noCache,
                            Consumer<String> progress) {
        Deque<String> tail = new ArrayDeque<>();
        BuildImageResultCallback callback = new BuildImageResultCallback() {
            @Override
            public void onNext(BuildResponseItem item) {
                String line = item.getStream() != null ? item.getStream()
                        : item.getErrorDetail() != null ? item.getErrorDetail().getMessage() : null;
                if (line != null && !line.isBlank()) {
                    line = line.stripTrailing();
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > LOG_TAIL) {
                            tail.removeFirst();
                        }
                    }
                    progress.accept(line);
                }
                super.onNext(item);
            }
        };
        try (InputStream in = Files.newInputStream(tar); callback) {
            docker.buildImageCmd(in).withTags(new HashSet<>(tags)).withLabels(labels).withPull(false)
                    .withNoCache(noCache).withRemove(true).withForcerm(true)
                    // a build's RUN steps are users' scripts: bounded like a sandbox, not the host
                    .withMemory(BUILD_MEMORY_BYTES).withMemswap(BUILD_MEMORY_BYTES).exec(callback);
            return callback.awaitImageId(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } catch (DockerClientException | DockerException e) {
            String log;
            synchronized (tail) {
                log = String.join("\n", tail);
            }
            throw new ImageBuildException("the image build failed: " + e.getMessage().strip()
                    + (log.isEmpty() ? "" : "; its last output:\n" + log), e);
        } catch (IOException e) {
            throw new ImageBuildException("could not read the build context: " + e.getMessage(), e);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temporary file: the OS cleans it eventually
            }
        }
    }

    /** Dockerfile at the top, the bundle under dockyard/, modes kept, one fixed mtime. */
    private static void writeContext(BuildContext context, Path tarFile) throws IOException {
        try (OutputStream out = Files.newOutputStream(tarFile);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new BufferedOutputStream(out, 1 << 16))) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            byte[] dockerfile = context.dockerfile().getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry file = new TarArchiveEntry("Dockerfile");
            file.setSize(dockerfile.length);
            file.setModTime(0);
            tar.putArchiveEntry(file);
            tar.write(dockerfile);
            tar.closeArchiveEntry();
            Path bundle = context.bundle();
            List<Path> paths;
            try (Stream<Path> tree = Files.walk(bundle)) {
                paths = tree.sorted().toList();
            }
            for (Path path : paths) {
                String name = "dockyard" + (path.equals(bundle) ? "" : "/" + bundle.relativize(path).toString()
                        .replace('\\', '/'));
                TarArchiveEntry entry;
                if (Files.isSymbolicLink(path)) {
                    entry = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK);
                    entry.setLinkName(Files.readSymbolicLink(path).toString());
                } else if (Files.isDirectory(path)) {
                    entry = new TarArchiveEntry(name + "/");
                    entry.setMode(040755);
                } else {
                    entry = new TarArchiveEntry(name);
                    entry.setSize(Files.size(path));
                    entry.setMode(Files.isExecutable(path) ? 0100755 : 0100644);
                }
                entry.setModTime(0);
                tar.putArchiveEntry(entry);
                // not entry.isFile(): commons-compress counts a symlink entry as a file
                if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(path, tar);
                }
                tar.closeArchiveEntry();
            }
        }
    }
}
