package dev.dockyard.executor;

/** A test's {@link ExecutorRequests.Host}: an executor already started, one session key, no failure. */
record StartedHost(ActionExecutor executor, byte[] sessionKey) implements ExecutorRequests.Host {

    @Override
    public String failure() {
        return null;
    }
}
