package dev.dockyard.fakes;

import dev.dockyard.backend.BuildContext;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/** An engine that finds images as Docker does: by tag, digest, whole id or any unique id prefix. */
public class FakeImages implements RuntimeImageBuilder {
    private final List<ImageInfo> images = new ArrayList<>();

    public void add(ImageInfo image) {
        images.add(image);
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        String name = image.contains(":") || image.contains("@") ? image : image + ":latest";
        String familiar = name.replaceFirst("^docker\\.io/library/", "");
        Optional<ImageInfo> named = images.stream().filter(i -> i.tags().contains(familiar)
                || i.digests().contains(familiar) || i.id().equals(image)).findFirst();
        if (named.isPresent()) {
            return named;
        }
        List<ImageInfo> prefixed = images.stream().filter(i -> i.id().startsWith("sha256:" + image)
                || i.id().startsWith(image) && image.startsWith("sha256:")).toList();
        return prefixed.size() == 1 ? Optional.of(prefixed.get(0)) : Optional.empty();
    }

    @Override
    public List<ImageInfo> list(String repository) {
        return List.copyOf(images);
    }

    @Override
    public String build(BuildContext context, Set<String> tags, Map<String, String> labels,
                        Consumer<String> progress) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String buildArchive(Path context, Set<String> tags, Map<String, String> labels,
                               Consumer<String> progress) {
        throw new UnsupportedOperationException();
    }
}
