package dev.dockyard.runtime.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** Where the executor client sends a call: under the executor's address, its path kept. */
class ExecutorClientAddressTest {

    @Test
    void shouldKeepTheExecutorsPathForAnExecutorBehindAProxy() {
        assertEquals(URI.create("http://127.0.0.1:19381/rt-abc/execute_action"),
                ExecutorClient.at(URI.create("http://127.0.0.1:19381/rt-abc"), "/execute_action"));
        assertEquals(URI.create("http://127.0.0.1:19381/rt-abc/download_files?path=%2Fworkspace"),
                ExecutorClient.at(URI.create("http://127.0.0.1:19381/rt-abc/"), "/download_files?path=%2Fworkspace"));
    }

    @Test
    void shouldAnswerAsBeforeForAnExecutorOnAPortOfItsOwn() {
        URI docker = URI.create("http://127.0.0.1:32768");
        assertEquals(docker.resolve("/ready"), ExecutorClient.at(docker, "/ready"));
    }
}
