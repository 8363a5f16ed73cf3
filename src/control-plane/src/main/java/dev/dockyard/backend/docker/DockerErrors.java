package dev.dockyard.backend.docker;

/**
 * How a failed engine call reads in the messages users and logs see: the engine's own words
 * (docker-java puts its answer in the exception's message), else the kind of failure.
 */
final class DockerErrors {

    private DockerErrors() {
    }

    static String describe(Exception e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message.strip();
    }
}
