package dev.dockyard.executor.envd;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every envd test class stands on: a real executor and HTTP server ({@link EnvdServer}) for the
 * class, in a temporary directory of its own, and a Connect client of it. The classes run one after
 * another (no parallel execution is configured), so these statics are one class's at a time.
 */
abstract class EnvdServerTests {

    @TempDir
    static Path dir;
    static EnvdServer server;
    static ConnectClient client;

    @BeforeAll
    static void startServer() throws IOException {
        server = new EnvdServer(dir);
        client = server.client();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }
}
