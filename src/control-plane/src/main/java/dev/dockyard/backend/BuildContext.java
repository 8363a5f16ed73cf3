package dev.dockyard.backend;

import java.nio.file.Path;

/**
 * What a runtime image build gets: the Dockerfile to run, and the executor bundle, which it sees
 * as {@code dockyard/} beside the Dockerfile. {@code noCache}: every step runs again, none is
 * taken from the engine's layer cache (a forced rebuild, e.g. to get newer packages).
 */
public record BuildContext(String dockerfile, Path bundle, boolean noCache) {
}
