package dev.dockyard.executor.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** PROTOCOL.md's paths sit at the root, as in OpenHands. */
@ApplicationPath("/")
public class ExecutorApplication extends Application {
}
