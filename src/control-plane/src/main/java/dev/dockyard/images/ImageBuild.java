package dev.dockyard.images;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One runtime image build, followed by whoever waits for it: provisionings that need the image
 * (every one of them gets the same build) and the images API. Kept in memory: a build is short,
 * the image it leaves is what lasts.
 */
public final class ImageBuild {

    /** How much of the reuse chain a build could skip, fastest first. */
    public enum Path {
        /** The source tag existed: nothing was built. */
        CACHED,
        /** Built on the lock image: only the executor bundle layer. */
        LOCK,
        /** Built on the versioned image: extra dependencies and bundle. */
        VERSIONED,
        /** Built on the base image: everything. */
        BASE
    }

    public enum Status { RUNNING, SUCCEEDED, FAILED }

    private static final Pattern STEP = Pattern.compile("^Step (\\d+)/(\\d+) :");
    private static final int LOG_TAIL = 40;

    private final String id;
    private final String node;
    private final String baseImage;
    private final RuntimeImageTags tags;
    private final Instant startedAt;
    private final CompletableFuture<String> image = new CompletableFuture<>();
    private final List<Consumer<String>> followers = new CopyOnWriteArrayList<>();
    private final Deque<String> log = new ArrayDeque<>();
    private volatile Path path;
    private volatile Status status = Status.RUNNING;
    private volatile Instant finishedAt;
    private volatile String error;
    private volatile int step;
    private volatile int steps;

    ImageBuild(String id, String node, String baseImage, RuntimeImageTags tags, Instant startedAt) {
        this.id = id;
        this.node = node;
        this.baseImage = baseImage;
        this.tags = tags;
        this.startedAt = startedAt;
    }

    /** Hears every line of the build's output from now on (steps, layers). */
    public void follow(Consumer<String> follower) {
        followers.add(follower);
    }

    void took(Path chosen) {
        this.path = chosen;
    }

    void output(String line) {
        Matcher m = STEP.matcher(line);
        if (m.find()) {
            step = Integer.parseInt(m.group(1));
            steps = Integer.parseInt(m.group(2));
        }
        synchronized (log) {
            log.addLast(line);
            if (log.size() > LOG_TAIL) {
                log.removeFirst();
            }
        }
        for (Consumer<String> follower : followers) {
            try {
                follower.accept(line);
            } catch (RuntimeException e) {
                followers.remove(follower);
            }
        }
    }

    void succeeded(Instant at) {
        finishedAt = at;
        status = Status.SUCCEEDED;
        image.complete(tags.image(tags.source()));
    }

    void failed(Instant at, RuntimeException why) {
        finishedAt = at;
        error = why.getMessage();
        status = Status.FAILED;
        image.completeExceptionally(why);
    }

    /** Completes with the runtime image's name (its source tag), or with the build's failure. */
    public CompletableFuture<String> image() {
        return image;
    }

    public String id() {
        return id;
    }

    public String node() {
        return node;
    }

    public String baseImage() {
        return baseImage;
    }

    public RuntimeImageTags tags() {
        return tags;
    }

    public Path path() {
        return path;
    }

    public Status status() {
        return status;
    }

    public Instant startedAt() {
        return startedAt;
    }

    public Instant finishedAt() {
        return finishedAt;
    }

    public String error() {
        return error;
    }

    public int step() {
        return step;
    }

    public int steps() {
        return steps;
    }

    public List<String> logTail() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }
}
